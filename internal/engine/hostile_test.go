package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs/core"
)

// startHostile runs the first start against a hostile fixture and returns
// the start error, with the peak heap seen while it ran.
func startHostile(t *testing.T, flaws string) (error, uint64) {
	cfg := fixtureConfig(t, flaws)
	cfg.StartTimeout = 3 * time.Second
	e, err := engine.New(cfg)
	require.NoError(t, err)
	require.NoError(t, engine.Open(e))
	defer e.Close()

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	pr, err := engine.StartPack(context.Background(), e, core.Pack)
	close(stop)
	<-sampled
	if pr != nil {
		pr.Close()
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("peak heap %d MiB, allocated %d MiB", peak.Load()>>20, allocated>>20)
	return err, allocated
}

// TestHugeLineIsBounded: a server that writes a 100 MiB line without a
// newline ends as a clear start error within the start bound, and the
// harness allocates far less than the line.
func TestHugeLineIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server that writes a 100 MiB line")
	}
	err, allocated := startHostile(t, "spew-line")
	var se *engine.StartError
	require.True(t, errors.As(err, &se), "want a StartError, got %v", err)
	assert.Contains(t, err.Error(), "no answer to initialize within 3s: the server wrote ")
	assert.Less(t, allocated, uint64(40<<20), "a 100 MiB line must not be buffered")
}

// TestHugeLineIsTheCause: a server that writes one line a few MiB past the
// frame limit instead of answering initialize gets that named as the
// cause, not "raise timeouts.start"; a server that stays silent still gets
// the timeout advice (TestSilentServerIsBounded).
func TestHugeLineIsTheCause(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server that writes a line past the frame limit")
	}
	cfg := fixtureConfig(t, "spew-line")
	cfg.Args = append(cfg.Args, "-spew-mib=6")
	cfg.StartTimeout = 3 * time.Second
	e, err := engine.New(cfg)
	require.NoError(t, err)
	require.NoError(t, engine.Open(e))
	defer e.Close()
	pr, err := engine.StartPack(context.Background(), e, core.Pack)
	if pr != nil {
		pr.Close()
	}
	var se *engine.StartError
	require.True(t, errors.As(err, &se), "want a StartError, got %v", err)
	// All 6 MiB, or on a loaded machine what the framer had read by then.
	assert.Regexp(t, `no answer to initialize within 3s: the server wrote [4-6]\.\d MiB on stdout without a newline \(one line past the frame limit of 4 MiB`, err.Error())
	assert.NotContains(t, err.Error(), "raise timeouts.start")
}

// TestSilentServerIsBounded: a server that never answers initialize ends as
// a start error with its log tail, not a hang.
func TestSilentServerIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server that never answers, waited out to the start bound")
	}
	start := time.Now()
	err, _ := startHostile(t, "hang-init")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no answer to initialize within 3s: raise timeouts.start (--timeout) if the server needs longer to start")
	assert.Contains(t, err.Error(), "sealmark-fixture ready", "the error carries the server log tail")
	t.Logf("gave up after %s", time.Since(start).Round(time.Millisecond))
}

// TestStartFailureIsNeverClean: a run whose server cannot start reports a
// harness error, never a clean run.
func TestStartFailureIsNeverClean(t *testing.T) {
	cfg := fixtureConfig(t, "")
	cfg.Command = "sealmark-no-such-server-program"
	cfg.Args = nil
	e, err := engine.New(cfg)
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	assert.Contains(t, rep.HarnessError, "sealmark-no-such-server-program")
	assert.True(t, strings.Contains(rep.HarnessError, "PATH"), "the error names the PATH searched: %s", rep.HarnessError)
	entries, _ := os.ReadDir(cfg.SandboxDir)
	assert.Empty(t, entries, "the sandbox is deleted")
}

// TestOfflineLauncherGetsAHint: a start that fails on name resolution says
// what to do instead of only quoting the log.
func TestOfflineLauncherGetsAHint(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a launcher that fails on name resolution")
	}
	e, err := engine.New(fixtureConfig(t, "offline-npx"))
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	assert.Contains(t, rep.HarnessError, "cannot download a package inside it")
	assert.Contains(t, rep.HarnessError, "EAI_AGAIN")
}

// TestStalledLauncherFailsEarly: a server that is refused the network while
// starting and then never answers (a launcher retrying its registry) fails
// the start half its bound (30 s here) after the refusal, with what to do,
// not at the minute-long start timeout; the refused destination is in the timeline.
// The good server under the same watch starts.
func TestStalledLauncherFailsEarly(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a launcher refused the network that never answers")
	}
	out := newOutsider(t)
	run := func(flaws string) *report.Report {
		cfg := fixtureConfig(t, flaws)
		cfg.Args = append(cfg.Args, "-outside="+out.addr)
		cfg.StartTimeout, cfg.Packs = time.Minute, []string{"core"}
		e, err := engine.New(cfg)
		require.NoError(t, err)
		return e.Run(context.Background(), engine.Hooks{})
	}
	rep := run("stall-offline")
	if !strings.Contains(rep.Sandbox.Isolation, "seccomp-notify") {
		t.Skipf("no egress observer here, so only the start timeout ends a stalled launcher: %s", rep.Sandbox.Isolation)
	}
	assert.Contains(t, rep.HarnessError, "tried to reach the network while starting")
	assert.Contains(t, rep.HarnessError, "cannot download a package inside it")
	assert.NotContains(t, rep.HarnessError, "within 1m0s", "the start timeout ended it, not the refusal")
	assert.NotNil(t, find(rep.Timeline, observers.KindSocket, func(r observers.Record) bool {
		return r.Data["verdict"] == "deny" && r.Data["port"] == fmt.Sprint(out.port)
	}), "the refused connection is in the timeline")
	assert.Empty(t, run("").HarnessError)
}
