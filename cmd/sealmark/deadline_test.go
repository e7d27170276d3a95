package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// deadlineSlack is a generous ceiling past --run-timeout for the CLI to
// stop the server, clean up and write its reports on a loaded machine.
const deadlineSlack = 30 * time.Second

// TestDeadlinesEndInVerdicts runs core against a server that, once it has
// listed its tools, answers one byte per 20 ms: with --probe-timeout 1.5s
// and --run-timeout 15s the run ends (exit 3, the deadline named) within
// the run's deadline and a slack, the probes it kept waiting are
// inconclusive with the probe deadline as the reason (not findings), and
// the probe in flight at the run's deadline is reported as interrupted.
// The same server without the flaw under the default deadlines is never
// cut short.
func TestDeadlinesEndInVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server answering one byte per 20 ms, waited to its deadlines")
	}
	t.Parallel()
	cases := []struct {
		flaws string
		flags []string
	}{
		{"dribble", []string{"--call-timeout", "5s", "--probe-timeout", "1500ms", "--run-timeout", "15s"}},
		{"", nil},
	}
	type result struct {
		code int
		took time.Duration
		rep  *report.Report
		err  string
	}
	results := make([]result, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Go(func() {
			path := filepath.Join(t.TempDir(), "report.json")
			args := append(append(runArgs(t, "--packs", "core", "--json", path), c.flags...), "--")
			start := time.Now()
			code, _, errOut := sealmark(t, append(args, serverArgs(t, c.flaws)...)...)
			results[i] = result{code: code, took: time.Since(start), err: errOut}
			if f, err := os.Open(path); err == nil {
				results[i].rep, _ = report.ReadJSON(f)
				f.Close()
			}
		})
	}
	wg.Wait()

	bad := results[0]
	t.Logf("dribble with --run-timeout 15s: the run took %s", bad.took.Round(time.Millisecond))
	assert.Less(t, bad.took, 15*time.Second+deadlineSlack)
	assert.Equal(t, report.ExitHarness, bad.code, "stderr: %s", bad.err)
	require.NotNil(t, bad.rep, "no JSON report; stderr: %s", bad.err)
	assert.Contains(t, bad.rep.HarnessError, "the run's deadline passed (timeouts.run 15s)")
	var byProbe, interrupted int
	for _, p := range bad.rep.Packs[0].Probes {
		switch {
		case strings.HasPrefix(p.Reason, "the probe's deadline passed (timeouts.probe 1.5s)"):
			byProbe++
		case strings.HasPrefix(p.Reason, "interrupted: the run's deadline passed"):
			interrupted++
		default:
			continue
		}
		assert.Equal(t, packs.Inconclusive, p.Verdict, p.ID)
		assert.Empty(t, p.Findings, p.ID)
	}
	assert.NotZero(t, byProbe, "no probe ended by its deadline")
	assert.LessOrEqual(t, interrupted, 1, "at most the probe in flight is interrupted")

	good := results[1]
	require.NotNil(t, good.rep, "no JSON report; stderr: %s", good.err)
	assert.Empty(t, good.rep.HarnessError)
	for _, p := range good.rep.Packs[0].Probes {
		assert.NotContains(t, p.Reason, "deadline passed", p.ID)
		assert.NotContains(t, p.Reason, "interrupted", p.ID)
	}
}
