package git_test

import (
	"testing"

	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// TestRealServers runs the git pack, passive and active, against the two
// pinned real git servers, started as their READMEs say (mcp-git with no
// argument, github-mcp-server with none: both take the repository per
// call), and pins their verdicts. Neither confines anything: both run git
// wherever a call points. Neither needs the network to start or to
// answer.
//
// Checked by hand once (2026-12-03), outside Sealmark: each server started
// with node in a scratch directory holding a repository with a secret in a
// commit message outside it, a repository whose .git/config sets
// core.fsmonitor to a stand-in sm-canary (a shell script appending its
// arguments to a file) first on PATH, and JSON-RPC written line by line:
//
//   - mcp-git 0.0.4 (dist/index.js spawns git with cwd = repo_path and no
//     check): git_log on the outside repository returned the secret
//     message; git_diff target="--output=<outside>/written" created that
//     file; git_status on the fsmonitor repository ran the stand-in twice;
//     git_init repo_path=<outside> made <outside>/.git. git_commit fails its
//     control in the sandbox (no user.name under the scrubbed HOME), so it
//     is left out, with a note.
//   - github-mcp-server 1.8.7 (dist/github.js runs "git ..." strings through
//     child_process.exec, a shell): git-log directory=<outside repository>
//     returned the secret message; git-clone targetDir=<outside>/cloned
//     and git-clone url=<outside repository> into the root both succeeded;
//     git-remote-add answered "added remote 'o2' with URL:
//     http://u:<password>@..." and its stderr log holds the password;
//     git-status on the fsmonitor repository ran the stand-in; git-diff
//     target="x;sm-canary SEMI;" and git-remove file="$(sm-canary tok1)"
//     ran it (the second inside double quotes, which do not stop $(...)).
func TestRealServers(t *testing.T) {
	t.Run("mcp-git-0.0.4", func(t *testing.T) {
		t.Parallel()
		rep := runGit(t, "node", realserver.MCPGit.CwdArg(t))
		packtest.Expect(t, rep, packtest.Want{
			"GIT-REPO-TRAVERSAL": {
				`git_log(repo_path="{sandbox_top}/canary/repo") returned the canary of canary/repo, outside the root`,
				`git_status(repo_path="../canary/repo") returned the canary of canary/repo`,
				`git_show(repo_path="{sandbox}/repo/../../canary/repo") returned the canary of canary/repo`,
			},
			"GIT-REPO-PREFIX-SIBLING": {`git_log(repo_path="{sandbox}-evil/repo") returned the canary of root-evil/repo`},
			"GIT-REPO-LINK": {
				`git_log(repo_path="{sandbox}/link-repo") returned the canary of canary/repo`,
				`git_log(repo_path="{sandbox}/repo/canary-link") returned the canary of canary/repo`,
			},
			"GIT-REPO-CONFIG-READ": {
				`git_status(repo_path="{sandbox}/hostile") ran sm-canary through core.fsmonitor`,
				`git_diff_unstaged(repo_path="{sandbox}/hostile") ran sm-canary through core.fsmonitor, filter.sealmark.clean`,
			},
			"GIT-CREATE-OUTSIDE": {
				`git_init(repo_path="{sandbox}-evil") created {sandbox}-evil/.git, outside the root`,
				`git_init(repo_path="{sandbox}/..") created {sandbox_top}/.git, outside the root`,
			},
			"GIT-ARGUMENT-INJECTION": {
				`git_diff(target="--output={sandbox}-evil/sealmark-{token}-out`,
				`git_show(revision="--output={sandbox}-evil/sealmark-{token}-out`,
			},
			"GIT-REPO-CONFIG-WRITE": {`git_checkout(repo_path="{sandbox}/hostile") ran sm-canary through core.fsmonitor, hooks/post-checkout`},
		})
	})
	t.Run("github-mcp-server-1.8.7", func(t *testing.T) {
		t.Parallel()
		rep := runGit(t, "node", realserver.GitHubMCP.CwdArg(t))
		packtest.Expect(t, rep, packtest.Want{
			"GIT-REPO-TRAVERSAL": {
				`git-log(directory="{sandbox_top}/canary/repo") returned the canary of canary/repo, outside the root`,
				`git-status(directory="../canary/repo") returned the canary of canary/repo`,
			},
			"GIT-REPO-PREFIX-SIBLING": {`git-log(directory="{sandbox}-evil/repo") returned the canary of root-evil/repo`},
			"GIT-REPO-LINK":           {`git-log(directory="{sandbox}/link-repo") returned the canary of canary/repo`},
			"GIT-REPO-CONFIG-READ":    {`git-status(directory="{sandbox}/hostile") ran sm-canary through core.fsmonitor`},
			"GIT-CREATE-OUTSIDE": {
				`git-clone(targetDir="{sandbox_top}/canary/sealmark-{token}-new`,
				`git-clone(targetDir="{sandbox}-evil/sealmark-{token}-new`,
				`git-init(directory="{sandbox}-evil") created {sandbox}-evil/.git, outside the root`,
			},
			"GIT-REMOTE-READ": {
				`git-clone(url="{sandbox_top}/canary/repo", targetDir="{sandbox}/sealmark-{token}-clone`,
				`git-clone(url="file://{sandbox_top}/canary/repo"`,
				`git-clone(url="{sandbox}/../canary/remote.git"`,
				`git-clone(url="{sandbox}-evil/repo"`,
			},
			"GIT-ARGUMENT-INJECTION": {
				`git-remove(file="$(sm-canary {token})") ran sm-canary: {token}`,
				`git-diff(target="x;sm-canary {token};") ran sm-canary: {token}`,
				`git-diff(target="--output={sandbox}-evil/sealmark-{token}-out`,
				`git-clone(url="$(sm-canary {token})") ran sm-canary: {token}`,
			},
			"GIT-REPO-CONFIG-WRITE": {
				`git-add-all(directory="{sandbox}/hostile") ran sm-canary through core.fsmonitor, filter.sealmark.clean`,
				`git-checkout(directory="{sandbox}/hostile") ran sm-canary through core.fsmonitor, filter.sealmark.clean, hooks/post-checkout`,
			},
			"GIT-URL-CREDENTIALS": {
				`git-remote-add(url="http://sealmark:<redacted>@127.0.0.1:{port}/sealmark-{token}.git") repeated the URL's password in its answer`,
				`git-remote-set-url(url="http://sealmark:<redacted>@127.0.0.1:{port}/sealmark-{token}.git") repeated the URL's password in its answer`,
				`wrote the URL's password to its log`,
			},
		})
	})
}
