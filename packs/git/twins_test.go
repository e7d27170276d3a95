package git_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// twins are the fixture git server's twins: the confined server fails no
// probe, and each flaw fails exactly the probes it earns, with these
// findings (for each probe, every text must be in one of its findings).
var twins = []struct {
	flaws string
	want  map[string][]string
}{
	{"", nil},
	{"prefix-check", map[string][]string{
		"GIT-REPO-PREFIX-SIBLING": {
			`git_status(repo_path="{sandbox}-evil/repo") returned the canary of root-evil/repo`,
			`git_log(repo_path="{sandbox}-evil/repo") returned the canary of root-evil/repo`,
		},
	}},
	{"follow-links", map[string][]string{
		"GIT-REPO-LINK": {
			`git_log(repo_path="{sandbox}/link-repo") returned the canary of canary/repo`,
			`git_show(repo_path="{sandbox}/repo/canary-link") returned the canary of canary/repo`,
		},
	}},
}

// TestTwins proves every git probe both ways against the fixture git
// server.
func TestTwins(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	for _, tw := range twins {
		name := tw.flaws
		if name == "" {
			name = "confined"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rep := runGit(t, self, "__sealmark-gitfixture", "-flaws="+tw.flaws, "{sandbox}")
			expect(t, rep, tw.want)
		})
	}
}
