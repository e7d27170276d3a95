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
	// The one resolver's flaw shows in every probe that names the place.
	{"prefix-check", map[string][]string{
		"GIT-REPO-PREFIX-SIBLING": {
			`git_status(repo_path="{sandbox}-evil/repo") returned the canary of root-evil/repo`,
			`git_log(repo_path="{sandbox}-evil/repo") returned the canary of root-evil/repo`,
		},
		"GIT-WORKDIR-ESCAPE": {`git_status() after git_set_working_dir(path="{sandbox}-evil/repo") returned the canary of root-evil/repo`},
		"GIT-CREATE-OUTSIDE": {`git_init(repo_path="{sandbox}-evil/sealmark-`},
		"GIT-REMOTE-READ":    {`git_clone(url="{sandbox}-evil/repo", destination="{sandbox}/sealmark-`},
	}},
	{"no-clean", map[string][]string{
		"GIT-REPO-TRAVERSAL": {
			`git_log(repo_path="{sandbox}/../canary/repo") returned the canary of canary/repo`,
			`git_status(repo_path="../canary/repo") returned the canary of canary/repo`,
			`git_show(repo_path="{sandbox}/repo/../../canary/repo") returned the canary of canary/repo`,
		},
		"GIT-WORKDIR-ESCAPE": {`git_log() after git_set_working_dir(path="../canary/repo") returned the canary of canary/repo`},
		"GIT-CREATE-OUTSIDE": {`git_init(repo_path="{sandbox}/../sealmark-`},
		"GIT-REMOTE-READ":    {`git_clone(url="{sandbox}/../canary/remote.git", destination="{sandbox}/sealmark-`},
	}},
	{"dest-unchecked", map[string][]string{
		"GIT-CREATE-OUTSIDE": {
			`git_init(repo_path="{sandbox_top}/canary/sealmark-`,
			`git_init(repo_path="{sandbox}-evil") created {sandbox}-evil/.git, outside the root`,
			`git_clone(destination="{sandbox}/../sealmark-`,
			`git_worktree_add(path="{sandbox}-evil/sealmark-`,
		},
	}},
	{"source-unchecked", map[string][]string{
		"GIT-REMOTE-READ": {
			`git_clone(url="{sandbox_top}/canary/repo", destination="{sandbox}/sealmark-`,
			`git_clone(url="file://{sandbox_top}/canary/repo"`,
			`git_clone(url="{sandbox}/../canary/remote.git"`,
		},
	}},
	{"workdir-escape", map[string][]string{
		"GIT-WORKDIR-ESCAPE": {
			`git_status() after git_set_working_dir(path="{sandbox_top}/canary/repo") returned the canary of canary/repo`,
			`git_log() after git_set_working_dir(path="{sandbox}-evil/repo") returned the canary of root-evil/repo`,
		},
	}},
	{"option-passthrough", map[string][]string{
		"GIT-ARGUMENT-INJECTION": {
			`git_diff(target="--output={sandbox}-evil/sealmark-`,
			`git_show(revision="--output={sandbox}-evil/sealmark-`,
		},
	}},
	{"shell-command", map[string][]string{
		"GIT-ARGUMENT-INJECTION": {
			`git_diff(target="$(sm-canary {token})") ran sm-canary: {token}`,
			`git_clone(url="$(sm-canary {token})") ran sm-canary: {token}`,
			`git_worktree_add(path="$(sm-canary {token})") ran sm-canary: {token}`,
		},
	}},
	{"hook-execution", map[string][]string{
		"GIT-REPO-CONFIG-READ": {
			`git_status(repo_path="{sandbox}/hostile") ran sm-canary through core.fsmonitor`,
			`git_diff(repo_path="{sandbox}/hostile") ran sm-canary through`,
		},
		"GIT-REPO-CONFIG-WRITE": {`git_checkout(repo_path="{sandbox}/hostile") ran sm-canary through core.fsmonitor, hooks/post-checkout`},
	}},
	{"echo-credentials", map[string][]string{
		"GIT-URL-CREDENTIALS": {
			`git_clone(url="http://sealmark:<redacted>@127.0.0.1:{port}/sealmark-{token}.git") repeated the URL's password in its answer`,
			`git_clone(url="http://sealmark:<redacted>@127.0.0.1:{port}/sealmark-{token}.git") wrote the URL's password to its log`,
		},
	}},
	{"follow-links", map[string][]string{
		"GIT-REPO-LINK": {
			`git_log(repo_path="{sandbox}/link-repo") returned the canary of canary/repo`,
			`git_show(repo_path="{sandbox}/repo/canary-link") returned the canary of canary/repo`,
		},
		"GIT-WORKDIR-ESCAPE": {`git_status() after git_set_working_dir(path="{sandbox}/link-repo") returned the canary of canary/repo`},
		"GIT-CREATE-OUTSIDE": {`git_init(repo_path="{sandbox}/link-repo/sealmark-`},
		"GIT-REMOTE-READ":    {`git_clone(url="{sandbox}/link-repo", destination="{sandbox}/sealmark-`},
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
