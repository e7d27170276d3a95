package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/packs"
)

// TestGitLayoutStagedOnlyWhenGitApplies proves the sandbox's git layout is
// made just before the git pack's start, and only when the first start's
// surface shows that the pack applies: a pack before it sees no root/repo,
// the git pack sees the whole layout, the observers take none of the
// staging for the server's doing, and a run where the pack does not apply
// never makes it.
func TestGitLayoutStagedOnlyWhenGitApplies(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs that stage the git layout, and runs that do not")
	}
	exists := func(p string) bool { _, err := os.Lstat(p); return err == nil }
	for _, applies := range []bool{true, false} {
		t.Run(map[bool]string{true: "applies", false: "not-applicable"}[applies], func(t *testing.T) {
			var before, during, after []string // what each pack saw of root/repo
			var gitView *packs.GitSandbox
			var fileRecs []string
			look := func(name string, into *[]string) packs.Pack {
				return packs.Pack{Name: name, Doc: "looks for root/repo", Probes: []packs.Probe{{
					ID: "TEST-" + strings.ToUpper(name), Name: "look", Doc: "records whether root/repo exists",
					Run: func(p *packs.Pass) {
						*into = append(*into, map[bool]string{true: "repo", false: "none"}[exists(filepath.Join(p.Sandbox.Root, "repo"))])
						if name == "git" {
							gitView = p.Sandbox.Git
							if p.Observed != nil {
								for _, r := range p.Observed.Probe() {
									fileRecs = append(fileRecs, r.Summary)
								}
							}
						}
					},
				}}}
			}
			gitLike := look("git", &during)
			gitLike.Applies = func(*packs.Surface) (bool, string) { return applies, "no git tool" }
			gitLike.GitLayout = true
			cfg := fixtureConfig(t, "")
			cfg.Catalog = []packs.Pack{look("first", &before), gitLike, look("last", &after)}
			e, err := engine.New(cfg)
			require.NoError(t, err)
			rep := e.Run(context.Background(), engine.Hooks{})
			require.Empty(t, rep.HarnessError)
			assert.Equal(t, []string{"none"}, before, "the first pack ran before the git layout was staged")
			if !applies {
				assert.Empty(t, during, "the git pack did not apply")
				assert.Equal(t, []string{"none"}, after, "a run whose git pack does not apply never stages the layout")
				return
			}
			assert.Equal(t, []string{"repo"}, during)
			require.NotNil(t, gitView, "the git pack's sandbox view has the layout")
			assert.NotEmpty(t, gitView.Hostile)
			assert.Len(t, gitView.Repos, 2, "canary/repo and root-evil/repo")
			assert.Empty(t, fileRecs, "the staging is the harness's doing, not the server's")
			for _, r := range rep.Timeline {
				assert.NotContains(t, r.Summary, "repo", "the staging is not in the timeline: %s", r.Summary)
			}
			for _, w := range rep.Warnings {
				assert.NotContains(t, w, "root/repo", "the layout was made")
			}
		})
	}
}
