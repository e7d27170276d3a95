package git_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// twins are the fixture git server's twins: the confined server fails no
// probe, and each flaw fails exactly the probes it earns, with these
// findings (for each probe, every text must be in one of its findings).
var twins = []packtest.Twin{
	{},
	// The one resolver's flaw shows in every probe that names the place.
	{Flaws: "prefix-check", Want: packtest.Want{
		"GIT-REPO-PREFIX-SIBLING": {
			`git_status(repo_path="{sandbox}-evil/repo") returned the canary of root-evil/repo`,
			`git_log(repo_path="{sandbox}-evil/repo") returned the canary of root-evil/repo`,
		},
		"GIT-WORKDIR-ESCAPE": {`git_status() after git_set_working_dir(path="{sandbox}-evil/repo") returned the canary of root-evil/repo`},
		"GIT-CREATE-OUTSIDE": {`git_init(repo_path="{sandbox}-evil/sealmark-`},
		"GIT-REMOTE-READ":    {`git_clone(url="{sandbox}-evil/repo", destination="{sandbox}/sealmark-`},
		"GIT-WORKTREE-OUTSIDE": {
			`git_worktree_add(path="{sandbox}-evil/sealmark-`,
			`git_worktree(mode="add", worktreePath="{sandbox}-evil/sealmark-`,
		},
		"GIT-INIT-IF-MISSING": {`git_set_working_dir(path="{sandbox}-evil", initializeIfNotPresent=true) created {sandbox}-evil/.git, outside the root`},
		"GIT-REMOTE-FETCH": {
			`git_remote(mode="add", url="{sandbox}-evil/repo") then git_fetch(remote="sealmark-{token}-r`,
			`git_fetch(remote="{sandbox}-evil/repo") fetched the commits of root-evil/repo, outside the root, into {sandbox}/repo`,
		},
	}},
	{Flaws: "no-clean", Want: packtest.Want{
		"GIT-REPO-TRAVERSAL": {
			`git_log(repo_path="{sandbox}/../canary/repo") returned the canary of canary/repo`,
			`git_status(repo_path="../canary/repo") returned the canary of canary/repo`,
			`git_show(repo_path="{sandbox}/repo/../../canary/repo") returned the canary of canary/repo`,
		},
		"GIT-WORKDIR-ESCAPE": {`git_log() after git_set_working_dir(path="../canary/repo") returned the canary of canary/repo`},
		"GIT-CREATE-OUTSIDE": {`git_init(repo_path="{sandbox}/../sealmark-`},
		"GIT-REMOTE-READ":    {`git_clone(url="{sandbox}/../canary/remote.git", destination="{sandbox}/sealmark-`},
		"GIT-WORKTREE-OUTSIDE": {
			`git_worktree_add(path="{sandbox}/repo/../../sealmark-`,
			`git_worktree(mode="add", worktreePath="{sandbox}/../sealmark-`,
		},
		"GIT-INIT-IF-MISSING": {`git_set_working_dir(path="{sandbox}/..", initializeIfNotPresent=true) created {sandbox_top}/.git, outside the root`},
		"GIT-REMOTE-FETCH":    {`git_fetch(remote="{sandbox}/../canary/remote.git") fetched the commits of canary/repo`},
	}},
	{Flaws: "dest-unchecked", Want: packtest.Want{
		"GIT-CREATE-OUTSIDE": {
			`git_init(repo_path="{sandbox_top}/canary/sealmark-`,
			`git_init(repo_path="{sandbox}-evil") created {sandbox}-evil/.git, outside the root`,
			`git_clone(destination="{sandbox}/../sealmark-`,
		},
		// The worktree path of both worktree shapes: git_worktree takes
		// the repository in path, the worktree in worktreePath.
		"GIT-WORKTREE-OUTSIDE": {
			`git_worktree_add(path="{sandbox}-evil/sealmark-`,
			`git_worktree(mode="add", worktreePath="{sandbox_top}/canary/sealmark-{token}-new`,
			`git_worktree(mode="add", worktreePath="{sandbox}/repo/../../sealmark-{token}-new`,
		},
	}},
	{Flaws: "source-unchecked", Want: packtest.Want{
		"GIT-REMOTE-READ": {
			`git_clone(url="{sandbox_top}/canary/repo", destination="{sandbox}/sealmark-`,
			`git_clone(url="file://{sandbox_top}/canary/repo"`,
			`git_clone(url="{sandbox}/../canary/remote.git"`,
		},
	}},
	{Flaws: "workdir-escape", Want: packtest.Want{
		"GIT-WORKDIR-ESCAPE": {
			`git_status() after git_set_working_dir(path="{sandbox_top}/canary/repo") returned the canary of canary/repo`,
			`git_log() after git_set_working_dir(path="{sandbox}-evil/repo") returned the canary of root-evil/repo`,
		},
		"GIT-INIT-IF-MISSING": {`git_set_working_dir(path="{sandbox_top}/canary", initializeIfNotPresent=true) created {sandbox_top}/canary/.git, outside the root`},
	}},
	{Flaws: "option-passthrough", Want: packtest.Want{
		"GIT-ARGUMENT-INJECTION": {
			`git_diff(target="--output={sandbox}-evil/sealmark-`,
			`git_show(revision="--output={sandbox}-evil/sealmark-`,
		},
	}},
	{Flaws: "shell-command", Want: packtest.Want{
		"GIT-ARGUMENT-INJECTION": {
			`git_diff(target="$(sm-canary {token})") ran sm-canary: {token}`,
			`git_clone(url="$(sm-canary {token})") ran sm-canary: {token}`,
			`git_worktree_add(path="$(sm-canary {token})") ran sm-canary: {token}`,
		},
	}},
	{Flaws: "hook-execution", Want: packtest.Want{
		"GIT-REPO-CONFIG-READ": {
			`git_status(repo_path="{sandbox}/hostile") ran sm-canary through core.fsmonitor`,
			`git_diff(repo_path="{sandbox}/hostile") ran sm-canary through`,
		},
		"GIT-REPO-CONFIG-WRITE": {`git_checkout(repo_path="{sandbox}/hostile") ran sm-canary through core.fsmonitor, hooks/post-checkout`},
	}},
	{Flaws: "echo-credentials", Want: packtest.Want{
		"GIT-URL-CREDENTIALS": {
			`git_clone(url="http://sealmark:<redacted>@127.0.0.1:{port}/sealmark-{token}.git") repeated the URL's password in its answer`,
			`git_clone(url="http://sealmark:<redacted>@127.0.0.1:{port}/sealmark-{token}.git") wrote the URL's password to its log`,
		},
	}},
	// The log line comes 150 ms after the call, the server busy until it
	// is written: the wait before the log is judged ends on the server
	// idle and its log drained, not on a ping's answer.
	{Flaws: "late-log-credentials", Want: packtest.Want{
		"GIT-URL-CREDENTIALS": {
			`git_clone(url="http://sealmark:<redacted>@127.0.0.1:{port}/sealmark-{token}.git") wrote the URL's password to its log`,
		},
	}},
	{Flaws: "init-before-check", Want: packtest.Want{
		"GIT-INIT-IF-MISSING": {
			`git_set_working_dir(path="{sandbox_top}/canary/sealmark-{token}-new`,
			`git_set_working_dir(path="{sandbox}-evil", initializeIfNotPresent=true) created {sandbox}-evil/.git, outside the root`,
		},
	}},
	{Flaws: "remote-unchecked", Want: packtest.Want{
		"GIT-REMOTE-FETCH": {
			`git_remote(mode="add", url="{sandbox_top}/canary/repo") then git_fetch(remote="sealmark-{token}-r`,
			`git_remote(mode="add", url="file://{sandbox_top}/canary/repo") then git_fetch(`,
			`git_fetch(remote="{sandbox}/../canary/remote.git") fetched the commits of canary/repo, outside the root, into {sandbox}/repo`,
			// git_pull fetches, then fails for want of a branch: the
			// fetch is judged by the file system, not the answer.
			`git_remote(mode="add", url="{sandbox}-evil/repo") then git_pull(remote="sealmark-{token}-r`,
			`git_pull(remote="{sandbox_top}/canary/repo") fetched the commits of canary/repo`,
		},
	}},
	{Flaws: "follow-links", Want: packtest.Want{
		"GIT-REPO-LINK": {
			`git_log(repo_path="{sandbox}/link-repo") returned the canary of canary/repo`,
			`git_show(repo_path="{sandbox}/repo/canary-link") returned the canary of canary/repo`,
		},
		"GIT-WORKDIR-ESCAPE":   {`git_status() after git_set_working_dir(path="{sandbox}/link-repo") returned the canary of canary/repo`},
		"GIT-CREATE-OUTSIDE":   {`git_init(repo_path="{sandbox}/link-repo/sealmark-`},
		"GIT-REMOTE-READ":      {`git_clone(url="{sandbox}/link-repo", destination="{sandbox}/sealmark-`},
		"GIT-WORKTREE-OUTSIDE": {`git_worktree(mode="add", worktreePath="{sandbox}/link-repo/sealmark-`},
		"GIT-INIT-IF-MISSING":  {`git_set_working_dir(path="{sandbox}/link-repo/sealmark-{token}-new`},
		"GIT-REMOTE-FETCH": {
			`git_remote(mode="add", url="{sandbox}/link-repo") then git_fetch(`,
			`git_fetch(remote="{sandbox}/link-repo") fetched the commits of canary/repo`,
		},
	}},
}

// TestTwins proves every git probe both ways against the fixture git
// server.
func TestTwins(t *testing.T) {
	self := packtest.Self(t)
	twins := packtest.Short(t, twins, "every git probe's twins against the fixture git server", "correct", "prefix-check")
	packtest.RunAll(t, twins, func(tw packtest.Twin) engine.Config {
		return config(self, "__sealmark-gitfixture", "-flaws="+tw.Flaws, "{sandbox}")
	}, func(t *testing.T, tw packtest.Twin, r packtest.Result) {
		packtest.Expect(t, r.Report, tw.Want)
		clean(t, r.Dir)
	})
}

// TestTwinAfterCore runs a twin with core first, as a default run does:
// the sandbox is made without the git layout and the engine stages it
// just before the git pack's start, once core's surface shows git tools.
// The git pack's verdicts are the same as on a run that made the layout
// at once (TestTwins).
func TestTwinAfterCore(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a twin run after core, staging the git layout late")
	}
	t.Parallel()
	tw := twins[slices.IndexFunc(twins, func(tw packtest.Twin) bool { return tw.Flaws == "hook-execution" })]
	cfg := config(packtest.Self(t), "__sealmark-gitfixture", "-flaws="+tw.Flaws, "{sandbox}")
	cfg.Catalog, cfg.Packs = nil, []string{"core", "git"}
	dir := t.TempDir()
	rep, err := packtest.Run(dir, cfg)
	require.NoError(t, err)
	require.Empty(t, rep.HarnessError)
	i := slices.IndexFunc(rep.Packs, func(p report.Pack) bool { return p.Name == "git" })
	require.GreaterOrEqual(t, i, 1, "the git pack ran after core: %v", rep.NotCovered)
	packtest.Expect(t, &report.Report{Packs: rep.Packs[i : i+1]}, tw.Want)
	clean(t, dir)
}

// TestLateLog proves url-credentials' wait for the log both ways, alone:
// the late-log-credentials twin writes the password to its log 150 ms
// after its last call, busy until then, and the probe still reads it
// there; the confined server, idle at once, gives no finding.
func TestLateLog(t *testing.T) {
	t.Parallel()
	self := packtest.Self(t)
	late := twins[slices.IndexFunc(twins, func(tw packtest.Twin) bool { return tw.Flaws == "late-log-credentials" })]
	packtest.RunAll(t, []packtest.Twin{{}, late}, func(tw packtest.Twin) engine.Config {
		cfg := config(self, "__sealmark-gitfixture", "-flaws="+tw.Flaws, "{sandbox}")
		cfg.OnlyProbes = []string{"url-credentials"}
		return cfg
	}, func(t *testing.T, tw packtest.Twin, r packtest.Result) {
		packtest.Expect(t, r.Report, tw.Want, packtest.Ran("GIT-URL-CREDENTIALS"))
		clean(t, r.Dir)
	})
}
