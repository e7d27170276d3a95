package exec_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/execserver"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// TestHostileLifetime proves the exec pack on servers that fight its
// lifetime probes, both ways:
//
//   - crash-script: run_script, listed first, kills the server on every
//     call (a Node server's unhandled EPIPE). The call that did is a high
//     finding naming it and the exit status; the pack's server is started
//     afresh, and every later probe (outlives-server too) runs through
//     run_command alone and passes. Without the finding and the fresh
//     start, the first probe passed and every later one was inconclusive.
//   - ignore-eof: the server runs on after its stdin closes. outlives-server
//     stops it with SIGTERM, as a client does, and judges what is left:
//     nothing of the strict server's (pass), the orphan-on-timeout twin's
//     sm-sleep 3600 (a finding). Before, both were inconclusive.
func TestHostileLifetime(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the twins of servers that fight the lifetime probes")
	}
	t.Parallel()
	self := packtest.Self(t)
	twins := []packtest.Twin{
		{Flaws: "crash-script", Want: packtest.Want{
			"EXEC-INJECT-SEPARATOR": {`high: control run_script(script="sm-echo {token}-ctl") killed the server (exit status 1)`},
		}},
		{Flaws: "ignore-eof"},
		{Flaws: "ignore-eof,orphan-on-timeout", Want: packtest.Want{
			"EXEC-OUTLIVES-SERVER": {`high: a child outlived the server: ["{sandbox_top}/bin/sm-sleep","3600"], started by run_command(command="sm-sleep", args=["3600"]) by timeout`},
		}},
	}
	packtest.RunAll(t, twins, func(tw packtest.Twin) engine.Config {
		return config(self, execserver.Verb, "-flaws="+tw.Flaws, "{sandbox}")
	}, func(t *testing.T, tw packtest.Twin, r packtest.Result) {
		packtest.Expect(t, r.Report, tw.Want, packtest.WithSeverity(), packtest.Ran("EXEC-OUTLIVES-SERVER"))
		leftovers(t, r.Dir)
	})
}

// TestEchoIsNoRun: a tool that runs nothing but answers with the command
// line as a terminal echoes it (with the shell's "command not found")
// fails every control, so no probe passes on it, outlives-server included
// (nothing was started to outlive the server). Before, the marker in the
// echoed line was taken for sm-echo's output, and every probe passed.
func TestEchoIsNoRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a full exec run against a server that only echoes")
	}
	t.Parallel()
	self := packtest.Self(t)
	rep := packtest.MustRun(t, config(self, execserver.Verb, "-flaws=echo-only", "{sandbox}"))
	require.Len(t, rep.Packs, 1)
	for _, p := range rep.Packs[0].Probes {
		assert.Equal(t, packs.Inconclusive, p.Verdict, "%s: %s %v", p.ID, p.Reason, p.Findings)
		if p.ID != "EXEC-OUTLIVES-SERVER" {
			assert.Contains(t, p.Reason, `run_command(command="sm-echo", args=["{token}-ctl"]) did not run sm-echo`, p.ID)
		}
	}
}

// TestKilledServerIsNoPass: a server that ignores both the end of its
// stdin and SIGTERM is killed; when nothing of it is left after SIGKILL
// (which, with a pid namespace, ends everything in it, the orphan-on-timeout
// twin's sm-sleep too), outlives-server cannot tell what would have
// outlived the server, and says so rather than passing.
func TestKilledServerIsNoPass(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a full exec run against a server killed mid-pack")
	}
	t.Parallel()
	self := packtest.Self(t)
	cfg := config(self, execserver.Verb, "-flaws=ignore-eof,ignore-sigterm,orphan-on-timeout", "{sandbox}")
	cfg.OnlyProbes = []string{"timeout", "outlives-server"}
	rep := packtest.MustRun(t, cfg)
	require.Len(t, rep.Packs, 1)
	for _, p := range rep.Packs[0].Probes {
		if p.ID != "EXEC-OUTLIVES-SERVER" {
			continue
		}
		assert.Contains(t, p.Notes, "the server was still running 5s after its stdin closed (core's exits-on-stdin-close judges that): stopped with SIGTERM, then SIGKILL")
		if len(p.Findings) > 0 {
			// No pid namespace here: the orphan outlived the killed server.
			assert.Contains(t, p.Findings[0].Message, `a child outlived the server: ["{sandbox_top}/bin/sm-sleep","3600"]`)
			return
		}
		assert.Equal(t, packs.Inconclusive, p.Verdict, p.Reason)
		assert.Contains(t, p.Reason, "the server ignored SIGTERM too and was killed")
		return
	}
	t.Fatal("outlives-server did not run")
}

// TestExitSettle proves outlives-server's wait after the server's exit
// both ways. The watchdog-child twin's watchdog (bash checking every
// 50 ms that the server is alive) is still running when the server has
// exited and ends on its own a check later: the wait lasts while anything
// left is running or due to wake within it, so the watchdog is gone
// before the list is made, and the probe passes. With orphan-on-timeout
// too, the orphan sm-sleep 3600 is found, and it alone: once the watchdog
// has gone, the tree left is idle and the wait ends.
func TestExitSettle(t *testing.T) {
	t.Parallel()
	self := packtest.Self(t)
	twins := []packtest.Twin{
		{Flaws: "watchdog-child"},
		{Flaws: "watchdog-child,orphan-on-timeout", Want: packtest.Want{
			"EXEC-OUTLIVES-SERVER": {`high: a child outlived the server: ["{sandbox_top}/bin/sm-sleep","3600"], started by run_command(command="sm-sleep", args=["3600"]`},
		}},
	}
	packtest.RunAll(t, twins, func(tw packtest.Twin) engine.Config {
		cfg := config(self, execserver.Verb, "-flaws="+tw.Flaws, "{sandbox}")
		cfg.OnlyProbes = []string{"timeout", "outlives-server"}
		return cfg
	}, func(t *testing.T, tw packtest.Twin, r packtest.Result) {
		packtest.Expect(t, r.Report, tw.Want, packtest.WithSeverity(), packtest.Ran("EXEC-OUTLIVES-SERVER"))
		for _, pk := range r.Report.Packs {
			for _, p := range pk.Probes {
				if p.ID == "EXEC-OUTLIVES-SERVER" {
					require.Len(t, p.Findings, len(tw.Want["EXEC-OUTLIVES-SERVER"]), "the watchdog is no finding: %v", p.Findings)
				}
			}
		}
		leftovers(t, r.Dir)
	})
}
