package effects_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/effectsserver"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// spawnTwin is a twin of the spawns probe with the exact findings it
// must give, in order, and texts no finding may hold.
type spawnTwin struct {
	flaws string
	want  []string // "severity: message prefix after the call"
	not   []string
}

func (tw spawnTwin) TestName() string { return tw.flaws }

// TestSpawnTwins proves the spawns probe both ways on what ran. A tool
// that tries sm-missing, installed nowhere, the way execvp and Node do
// (one execve per PATH directory, all ENOENT) is one low finding, "tried
// to run sm-missing (not found)", whose message and evidence name no
// directory of the host's PATH; the fixture's own program, which it
// starts to do that, is not charged (the package's own binary). A tool
// that runs sm-echo is "ran" as before. A tool that runs git clone over
// http is charged for git, not for the remote helper git starts
// (git-remote-http) nor for git's own sub-programs under its exec-path.
func TestSpawnTwins(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every spawn twin against the fixture server")
	}
	t.Parallel()
	const readNote = `read_note(name="sealmark-{token}")`
	self := packtest.Self(t)
	twins := []spawnTwin{
		{flaws: "spawn-missing", want: []string{`low: ` + readNote + ` tried to run sm-missing (not found)`}, not: []string{" ran "}},
		{flaws: "spawn-on-read", want: []string{`high: ` + readNote + ` ran sm-echo sealmark-{token}`}},
		{flaws: "git-clone", want: []string{`high: ` + readNote + ` ran git clone --quiet {upstream}/sealmark-git/sealmark-{token}.git`},
			not: []string{"git-remote", "remote-http", "git-core"}},
	}
	packtest.RunAll(t, twins, func(tw spawnTwin) engine.Config {
		return config(false, self, effectsserver.Verb, "-flaws="+tw.flaws, "-allow={upstream}",
			"-outside=127.0.0.1:9", "-dns=127.0.0.53:53")
	}, func(t *testing.T, tw spawnTwin, r packtest.Result) {
		p := probe(t, r.Report, "EFFECTS-SPAWNS")
		require.Equal(t, packs.Failed, p.Verdict, "%s; notes %q", p.Reason, p.Notes)
		var got []string
		for _, f := range p.Findings {
			got = append(got, f.Severity.String()+": "+strings.ReplaceAll(f.Message, p.Token, "{token}"))
		}
		for _, f := range p.Findings {
			t.Logf("%s: %s", f.Severity, f.String())
		}
		require.Len(t, got, len(tw.want), "findings %q", got)
		for i, w := range tw.want {
			assert.True(t, strings.HasPrefix(got[i], w), "finding %q, want %q", got[i], w)
		}
		for _, f := range p.Findings {
			all := strings.ReplaceAll(f.String(), "{sandbox_top}/bin/", "{sandbox_top}/BIN/") // the sandbox's own bin is no host directory

			for _, n := range tw.not {
				assert.NotContains(t, all, n)
			}
			for _, dir := range hostPath() {
				assert.NotContains(t, all, dir+"/sm-missing", "a host PATH directory in the finding")
			}
		}
		if tw.flaws == "git-clone" {
			// git did start its remote helper, below itself: not charged,
			// not unseen
			helper := false
			all := r.Report.Timeline
			for _, pk := range r.Report.Packs {
				for _, pr := range pk.Probes {
					all = append(all, pr.Observations...)
				}
			}
			for _, o := range all {
				helper = helper || o.Observer == "egress" && strings.HasSuffix(o.Data["path"], "/git-remote-http") && o.Data["found"] == "true"
			}
			assert.True(t, helper, "no exec of git-remote-http observed")
		}
		if tw.flaws == "spawn-missing" {
			// the fixture tried every PATH directory: the evidence counts them
			assert.Contains(t, p.Findings[0].String(), "places on PATH", "the evidence says how many places were tried")
		}
	})
}

// hostPath is this machine's PATH, the directories the sandbox's PATH
// carries after its own bin.
func hostPath() []string {
	var out []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d != "" {
			out = append(out, filepath.Clean(d))
		}
	}
	return out
}

// probe is a probe of the report's only pack.
func probe(t *testing.T, rep *report.Report, id string) report.Probe {
	t.Helper()
	require.Empty(t, rep.HarnessError)
	for _, pk := range rep.Packs {
		for _, p := range pk.Probes {
			if p.ID == id {
				return p
			}
		}
	}
	t.Fatalf("%s did not run", id)
	return report.Probe{}
}

// TestNodeSpawns pins the spawns probe on Node's own child_process (libuv),
// which the measured servers use: sdk_info runs xcrun, installed nowhere,
// and libuv tries it in every PATH directory (checked by hand: strace -f
// -e trace=execve node sdkinfo.js shows one execve per PATH directory, all
// ENOENT; the old judge reported a high "ran xcrun --show-sdk-path"
// finding per directory, naming each: 14 under sealmark run here, as
// measured in issue #25). Now one low finding.
// clone_http and clone_file clone with git, which their descriptions
// name: git-remote-http (http) and sh -c git-upload-pack,
// git-upload-pack and git pack-objects (file://) are git's, not the
// tool's (the old judge reported git-remote-http, the shell and
// git-upload-pack as high findings), and the probe passes, with the
// helpers seen.
func TestNodeSpawns(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"node", "git"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not on PATH", prog)
		}
	}
	t.Run("xcrun-not-found", func(t *testing.T) {
		t.Parallel()
		script := copyScript(t, "sdkinfo.js")
		rep := packtest.MustRun(t, config(false, "node", script))
		p := probe(t, rep, "EFFECTS-SPAWNS")
		require.Equal(t, packs.Failed, p.Verdict, "%s; notes %q", p.Reason, p.Notes)
		require.Len(t, p.Findings, 1, "%v", p.Findings)
		f := p.Findings[0]
		assert.Equal(t, packs.Low, f.Severity)
		assert.Equal(t, "sdk_info() tried to run xcrun (not found)", f.Message)
		all := strings.ReplaceAll(f.String(), "{sandbox_top}/bin/", "")
		assert.Contains(t, all, "places on PATH")
		for _, dir := range hostPath() {
			assert.NotContains(t, all, dir+"/xcrun", "a host PATH directory in the finding")
		}
	})
	t.Run("git-helpers", func(t *testing.T) {
		t.Parallel()
		script := copyScript(t, "cloner.js")
		repo := filepath.Join(filepath.Dir(script), "repo")
		for _, args := range [][]string{{"init", "-q", repo}, {"-C", repo, "-c", "user.name=s", "-c", "user.email=s@sealmark.invalid", "commit", "-q", "--allow-empty", "-m", "x"}} {
			out, err := exec.Command("git", args...).CombinedOutput()
			require.NoError(t, err, "%s", out)
		}
		rep := packtest.MustRun(t, config(false, "node", script, repo))
		p := probe(t, rep, "EFFECTS-SPAWNS")
		require.Equal(t, packs.Passed, p.Verdict, "%s; findings %v", p.Reason, p.Findings)
		seen := map[string]bool{}
		for _, pk := range rep.Packs {
			for _, pr := range pk.Probes {
				for _, o := range pr.Observations {
					if o.Observer == "egress" && o.Data["op"] == "exec" && o.Data["found"] == "true" {
						seen[filepath.Base(o.Data["path"])] = true
					}
				}
			}
		}
		for _, helper := range []string{"git-remote-http", "sh", "git-upload-pack"} {
			assert.True(t, seen[helper], "git started no %s: %v", helper, seen)
		}
	})
}

// copyScript copies a testdata script into a directory of its own, the
// server's install directory.
func copyScript(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "srv")
	require.NoError(t, os.Mkdir(dir, 0o755))
	script := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(script, b, 0o644))
	return script
}
