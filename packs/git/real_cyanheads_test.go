package git_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/environ"
	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// cyanheadsGit is @cyanheads/git-mcp-server 2.15.3, pinned in
// testdata/npm like the servers realserver names: one tool per git
// command, many with a mode (git_worktree, git_remote), the repository in
// "path", and git_set_working_dir with initializeIfNotPresent.
var cyanheadsGit = realserver.Server{Dir: "git-mcp-server-2.15.3", Package: "@cyanheads/git-mcp-server", Entry: "dist/index.js"}

// TestRealServerBaseDir runs the git pack, passive and active, against
// @cyanheads/git-mcp-server 2.15.3 configured as its README advises for
// confinement: GIT_BASE_DIR set to the root. The base directory holds the
// repository paths (repo-traversal and repo-prefix-sibling pass: an
// absolute or ../ path outside it is refused), but not what the three
// many-mode probes reach: git_worktree's worktreePath, the path
// git_set_working_dir initializes (it skips the path check) and a
// remote's URL are never checked against it. Links are not resolved, so
// root/link-repo still leads out.
//
// Checked by hand once (2026-12-04), outside Sealmark: sealmark run
// --fixture git --into /tmp/hc/git, then scripts/precision/rawcall.py
// --cwd /tmp/hc/git/root --env GIT_BASE_DIR=/tmp/hc/git/root -- node
// dist/index.js with, in one session:
//
//   - git_worktree {"path":"/tmp/hc/git/root/repo","mode":"add",
//     "worktreePath":"/tmp/hc/git/canary/handwt","branch":"handwt"}:
//     success; /tmp/hc/git/canary/handwt holds a worktree (.git file,
//     README.md), outside the base directory.
//   - git_set_working_dir {"path":"/tmp/hc/git/root-evil/handinit",
//     "initializeIfNotPresent":true}: success;
//     /tmp/hc/git/root-evil/handinit/.git exists.
//   - git_remote {"path":"/tmp/hc/git/root/repo","mode":"add",
//     "name":"hand","url":"/tmp/hc/git/canary/repo"} then git_fetch
//     {"path":"/tmp/hc/git/root/repo","remote":"hand"}: "fetchedRefs":
//     ["hand/main"]; root/repo/.git/refs/remotes/hand/main is canary/repo's
//     head commit, and git log hand/main in root/repo shows its canary
//     message.
//   - git_remote add name=hand2 url=file:///tmp/hc/git/root-evil/repo then
//     git_pull {"remote":"hand2"}: an error result ("you must specify a
//     branch") whose stderr shows "* [new branch] main -> hand2/main";
//     refs/remotes/hand2/main is root-evil/repo's head commit.
//   - git_log {"path":"/tmp/hc/git/canary/repo"}: "Path traversal
//     detected" (the base directory holds), while git_log
//     {"path":"/tmp/hc/git/root/link-repo"} returned canary/repo's canary
//     commit (the check is on the path's text, links are not resolved).
func TestRealServerBaseDir(t *testing.T) {
	t.Parallel()
	cfg := config("node", cyanheadsGit.CwdArg(t))
	cfg.Env = []environ.KV{{Name: "GIT_BASE_DIR", Value: "{sandbox}"}}
	dir := t.TempDir()
	rep, err := packtest.Run(dir, cfg)
	require.NoError(t, err)
	require.Empty(t, rep.HarnessError)
	clean(t, dir)
	packtest.Expect(t, rep, packtest.Want{
		"GIT-WORKTREE-OUTSIDE": {
			`git_worktree(mode="add", worktreePath="{sandbox_top}/canary/sealmark-{token}-new`,
			`git_worktree(mode="add", worktreePath="{sandbox}-evil/sealmark-{token}-new`,
			`git_worktree(mode="add", worktreePath="{sandbox}/repo/../../sealmark-{token}-new`,
		},
		"GIT-INIT-IF-MISSING": {
			`git_set_working_dir(path="{sandbox}-evil", initializeIfNotPresent=true) created {sandbox}-evil/.git, outside the root`,
			`git_set_working_dir(path="{sandbox_top}/canary", initializeIfNotPresent=true) created {sandbox_top}/canary/.git, outside the root`,
			`git_set_working_dir(path="../sealmark-{token}-new`,
		},
		"GIT-REMOTE-FETCH": {
			`git_remote(mode="add", url="{sandbox_top}/canary/repo") then git_fetch(remote="sealmark-{token}-r`,
			`git_remote(mode="add", url="file://{sandbox_top}/canary/repo") then git_fetch(`,
			`git_remote(mode="add", url="{sandbox}-evil/repo") then git_fetch(remote="sealmark-{token}-r`,
			// git_pull fetches, then fails for want of a branch: the
			// remote-tracking ref is there all the same.
			`git_remote(mode="add", url="{sandbox}/link-repo") then git_pull(remote="sealmark-{token}-r`,
		},
		"GIT-REPO-LINK":        {`git_log(path="{sandbox}/link-repo") returned the canary of canary/repo`},
		"GIT-WORKDIR-ESCAPE":   {`git_set_working_dir(path="{sandbox_top}/canary/repo") returned the canary of canary/repo`},
		"GIT-REPO-CONFIG-READ": {`git_status(path="{sandbox}/hostile") ran sm-canary through core.fsmonitor`},
		"GIT-CREATE-OUTSIDE": {
			`git_clone(path="{sandbox}-evil/sealmark-{token}-new`,
			`git_init(path="{sandbox}/link-repo/sealmark-{token}-new`,
		},
		"GIT-REMOTE-READ":       {`git_clone(url="{sandbox_top}/canary/repo", path="{sandbox}/sealmark-{token}-clone`},
		"GIT-REPO-CONFIG-WRITE": {`git_checkout(path="{sandbox}/hostile") ran sm-canary through core.fsmonitor, hooks/post-checkout`},
		"GIT-URL-CREDENTIALS":   {`git_clone(url="http://sealmark:<redacted>@127.0.0.1:{port}/sealmark-{token}.git") wrote the URL's password to its log`},
	})
}
