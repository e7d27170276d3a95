package engine_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/core"
)

// observedRun runs the core pack against the fixture with flaws and extra
// fixture flags, and returns the report.
func observedRun(t *testing.T, flaws string, mutate func(*engine.Config), extra ...string) *report.Report {
	cfg := fixtureConfig(t, flaws)
	cfg.Args = append(cfg.Args, extra...)
	cfg.Packs = []string{"core"}
	if mutate != nil {
		mutate(&cfg)
	}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	return rep
}

// probeRecords returns the observations of one probe.
func probeRecords(rep *report.Report, id string) []observers.Record {
	for _, p := range rep.Packs[0].Probes {
		if p.ID == id {
			return p.Observations
		}
	}
	return nil
}

func find(rs []observers.Record, kind string, match func(observers.Record) bool) *observers.Record {
	for i, r := range rs {
		if r.Kind == kind && (match == nil || match(r)) {
			return &rs[i]
		}
	}
	return nil
}

// TestGoodServerLeavesNoObservation: the well-behaved twin produces
// nothing any observer reports.
func TestGoodServerLeavesNoObservation(t *testing.T) {
	rep := observedRun(t, "", nil)
	for _, p := range rep.Packs[0].Probes {
		assert.Empty(t, p.Observations, "%s observed something", p.ID)
	}
	for _, r := range rep.Timeline {
		if r.Kind == observers.KindSocket && r.Data["op"] == "egress-not-observed" {
			continue // a statement about this run's coverage, not an observation
		}
		t.Errorf("timeline: unexpected %s record: %s", r.Kind, r.Summary)
	}
}

// TestCallbackIsAttributedByToken: a server that fetches the loopback
// listener with the probe's token shows up in that probe's observations.
func TestCallbackIsAttributedByToken(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server that calls the loopback listener back")
	}
	rep := observedRun(t, "callback", nil, "-callback={listener}")
	r := find(probeRecords(rep, "CORE-TOOL-SWEEP"), observers.KindConnection, nil)
	require.NotNil(t, r, "no connection recorded for the tool sweep")
	assert.Equal(t, "token", r.Data["attributed"])
	assert.Contains(t, r.Data["target"], "/cb/sealmark-{token}")
	var text, js strings.Builder
	require.NoError(t, report.WriteTextWith(&text, rep, report.TextOptions{Verbose: true}))
	require.NoError(t, report.WriteJSON(&js, rep))
	assert.Regexp(t, `seen: connection: GET /cb/sealmark-\{token\}`, text.String(), "the text report shows the observation under its probe")
	assert.Contains(t, js.String(), `"kind": "connection"`)
	assert.NotContains(t, text.String()+js.String(), "smtok-", "tokens appear as {token}")
}

// TestRedirectReachesUpstreamAndListener: a server that follows the
// upstream stub's redirect is seen by both.
func TestRedirectReachesUpstreamAndListener(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server that follows the upstream stub's redirect")
	}
	rep := observedRun(t, "follow-redirect", nil, "-upstream={upstream}")
	rs := probeRecords(rep, "CORE-TOOL-SWEEP")
	assert.NotNil(t, find(rs, observers.KindUpstream, func(r observers.Record) bool { return r.Data["path"] == "/redirect" }), "%v", rs)
	assert.NotNil(t, find(rs, observers.KindConnection, func(r observers.Record) bool { return r.Data["target"] == "/redirected" }), "%v", rs)
}

// TestExecIsRecordedWithToken: sm-canary runs are logged with the token.
func TestExecIsRecordedWithToken(t *testing.T) {
	rep := observedRun(t, "exec-canary", nil)
	r := find(probeRecords(rep, "CORE-TOOL-SWEEP"), observers.KindProcess, func(r observers.Record) bool { return r.Data["op"] == "exec" })
	require.NotNil(t, r, "no exec record")
	assert.Contains(t, r.Data["argv"], "sm-canary")
	assert.Contains(t, r.Data["argv"], "{token}")
}

// TestStderrFloodLeavesALossRecord: a ring that wrapped says so.
func TestStderrFloodLeavesALossRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server that floods stderr past its ring")
	}
	rep := observedRun(t, "flood-stderr", nil)
	r := find(rep.Timeline, observers.KindLoss, func(r observers.Record) bool { return r.Observer == "serverlog" })
	require.NotNil(t, r, "no loss record for the server log")
	assert.Contains(t, r.Summary, "dropped its oldest")
}

// TestNothingOutlivesTheRun: after a server that starts a setsid daemon,
// no process carrying the run's marker is alive.
func TestNothingOutlivesTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server that starts a setsid daemon")
	}
	var dir string
	rep := observedRun(t, "daemon", func(c *engine.Config) { dir = c.SandboxDir })
	assert.NotNil(t, find(rep.Timeline, observers.KindProcess, func(r observers.Record) bool { return r.Data["op"] == "orphan" }), "the sweep recorded the daemon")
	shim := find(rep.Timeline, observers.KindProcess, func(r observers.Record) bool { return strings.Contains(r.Data["argv"], contain.Verb) })
	assert.Nil(t, shim, "the containment shim is the harness's, never recorded as the server's process")
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cwd, _ := os.Readlink("/proc/" + e.Name() + "/cwd")
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.HasPrefix(cwd, dir) && strings.Contains(string(cmdline), "sm-sleep\x00600") {
			stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
			if !strings.Contains(string(stat), ") Z ") {
				t.Errorf("pid %s (sm-sleep 600) outlived the run", e.Name())
			}
		}
	}
}

// TestRugPullIsDrift: a server whose tool description changes on its
// second start is caught by the run's drift check, core's last step, which
// starts the server once more; the good server is not, nor one whose
// schema defaults are computed at start (now, now − 30 days, a random
// uuid, a nonce), which the drift check's note names instead; with both,
// only the description is drift.
func TestRugPullIsDrift(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server whose tools change on its second start")
	}
	nothing := []packs.Probe{{ID: "TEST-NOTHING", Name: "nothing", Doc: "checks nothing", Run: func(*packs.Pass) {}}}
	for flaws, want := range map[string]bool{"rug-pull": true, "": false, "start-defaults": false, "start-defaults,rug-pull": true} {
		cfg := fixtureConfig(t, flaws)
		cfg.Catalog = []packs.Pack{{Name: "core", Doc: "stands for core", Probes: nothing, Restarted: core.Pack.Restarted}, {Name: "later", Doc: "a later pack", Probes: nothing}}
		e, err := engine.New(cfg)
		require.NoError(t, err)
		rep := e.Run(context.Background(), engine.Hooks{})
		require.Empty(t, rep.HarnessError)
		require.Len(t, rep.Packs, 2)
		require.Len(t, rep.Packs[0].Probes, 2, "core's probes, then the drift check")
		drift := rep.Packs[0].Probes[1]
		require.Equal(t, "CORE-DRIFT", drift.ID)
		assert.Equal(t, []string{"TEST-NOTHING"}, []string{rep.Packs[1].Probes[0].ID}, "a later pack's start checks no drift")
		assert.Len(t, rep.Packs[1].Probes, 1)
		if !want {
			assert.Equal(t, packs.Passed, drift.Verdict, "%s: %v", flaws, drift.Findings)
		} else {
			require.Equal(t, packs.Failed, drift.Verdict, flaws)
			require.Len(t, drift.Findings, 1, "%s: %v", flaws, drift.Findings)
			assert.Contains(t, drift.Findings[0].Message, `the description of "read_note" changed`)
		}
		if strings.Contains(flaws, "start-defaults") {
			assert.Len(t, drift.Notes, 1, "%s: the note of the values ignored", flaws)
			if len(drift.Notes) == 0 {
				continue
			}
			// since is a date: it differs only when the starts straddle midnight.
			for _, v := range []string{"until.default (a time or date)", "after_ms.default (an epoch time)", "request_id.default (a uuid)", "nonce.default (a hex nonce)"} {
				assert.Contains(t, drift.Notes[0], "recent_notes: inputSchema.properties."+v, flaws)
			}
		}
	}
}

// TestEgressIsObservedAndRefused: a server that connects to a loopback port
// the harness does not own is seen by the seccomp observer and refused; the
// connection never arrives.
func TestEgressIsObservedAndRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server that connects to a port the harness does not own")
	}
	out := newOutsider(t)
	rep := observedRun(t, "callback", nil, fmt.Sprintf("-callback=http://%s", out.addr))
	if !strings.Contains(rep.Sandbox.Isolation, "seccomp-notify") {
		t.Skipf("the seccomp egress observer does not apply here: %s", rep.Sandbox.Isolation)
	}
	r := find(probeRecords(rep, "CORE-TOOL-SWEEP"), observers.KindSocket, func(r observers.Record) bool {
		return r.Data["op"] == "connect" && r.Data["port"] == fmt.Sprint(out.port)
	})
	require.NotNil(t, r, "the connect was not recorded: %v", probeRecords(rep, "CORE-TOOL-SWEEP"))
	assert.Equal(t, "deny", r.Data["verdict"])
	assert.False(t, out.reached(), "the refused connection reached the outsider")
}
