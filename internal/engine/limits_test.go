package engine_test

import (
	"cmp"
	"context"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/slowtest"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/table"
)

// limitsHere skips the test where the cgroup leaf cannot enforce limits of
// 64 tasks and 256 MiB (not root, or no pids or memory controller), with
// the isolation line that says why.
func limitsHere(t *testing.T) {
	t.Helper()
	iso := contain.Probe().For(contain.Options{Cgroup: true, NetNS: true, MaxProcs: 64, MaxMemory: 256 << 20})
	for _, l := range []string{"pids.max", "memory.max"} {
		if !iso.Enforces(l) {
			t.Skipf("the cgroup leaf here sets no %s, so no limit to meet: %s", l, iso.Line())
		}
	}
}

// limitRuns runs each config at once, under limits of 64 tasks and
// 256 MiB, and returns the reports in order.
func limitRuns(t *testing.T, cfgs []engine.Config) []*report.Report {
	t.Helper()
	reps := make([]*report.Report, len(cfgs))
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		cfg.MaxProcs, cfg.MaxMemoryMiB = 64, 256
		cfg.CallTimeout = slowtest.Scale(10 * time.Second) // a fork bomb, or a child filling 256 MiB, under load takes a while
		wg.Go(func() {
			e, err := engine.New(cfg)
			if err != nil {
				t.Error(err)
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), slowtest.Scale(2*time.Minute))
			defer cancel()
			reps[i] = e.Run(ctx, engine.Hooks{})
		})
	}
	wg.Wait()
	for _, rep := range reps {
		require.NotNil(t, rep)
		require.Empty(t, rep.HarnessError)
	}
	return reps
}

// limitFindingsOf returns the CWE-770 findings of a report, by probe name.
func limitFindingsOf(rep *report.Report) map[string][]packs.Finding {
	out := map[string][]packs.Finding{}
	for _, pk := range rep.Packs {
		for _, p := range pk.Probes {
			for _, f := range p.Findings {
				if f.CWE == "CWE-770" {
					out[p.Name] = append(out[p.Name], f)
				}
			}
		}
	}
	return out
}

var (
	procsCount  = regexp.MustCompile(`^[1-9][0-9]* forks refused at the process limit \(64 tasks\)$`)
	memoryCount = regexp.MustCompile(`^[1-9][0-9]* processes killed for going past the memory limit \(256 MiB\)$`)
)

// TestLimitMetInAProbe: a limit met during a probe of a pack other than
// core fails that probe, and only it, with the limit's finding naming the
// probe, the count in its evidence. A table pack calls read_note twice,
// one row each: a server that fork-bombs on its first call fails the
// first row (high), one that has a child killed for memory fails it
// (medium); the second row and the good server pass, with no finding.
func TestLimitMetInAProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a process limit met during a probe")
	}
	t.Parallel()
	limitsHere(t)
	own, err := catalogue.Rows("mine", []table.Row{
		{Name: "first-call", Tool: "read_note", Args: map[string]any{"name": "a"}, Expect: []table.Expect{table.Succeeds()}},
		{Name: "second-call", Tool: "read_note", Args: map[string]any{"name": "b"}, Expect: []table.Expect{table.Succeeds()}},
	}, "")
	require.NoError(t, err)
	cases := []struct {
		flaws, want string
		sev         packs.Severity
		count       *regexp.Regexp
	}{
		{"", "", 0, nil},
		{"fork-bomb-on-call", "the server met its procs limit during probe first-call: forks were refused at its process limit (64 tasks)", packs.High, procsCount},
		{"memory-hog-on-call", "the server met its memory limit during probe first-call: a process was killed for going past its memory limit (256 MiB)", packs.Medium, memoryCount},
	}
	var cfgs []engine.Config
	for _, c := range cases {
		cfg := fixtureConfig(t, c.flaws)
		cfg.Own, cfg.Packs = own, []string{"mine"}
		cfgs = append(cfgs, cfg)
	}
	reps := limitRuns(t, cfgs)
	for i, c := range cases {
		t.Run(cmp.Or(c.flaws, "good"), func(t *testing.T) {
			rep := reps[i]
			require.Len(t, rep.Packs, 1)
			require.Equal(t, "mine", rep.Packs[0].Name)
			probes := rep.Packs[0].Probes
			require.Len(t, probes, 2)
			second := probes[1]
			assert.Equal(t, packs.Passed, second.Verdict, "%s %v", second.Reason, second.Findings)
			for _, r := range second.Observations {
				assert.NotEqual(t, observers.KindLimit, r.Kind, "the second row met no limit: %s", r.Summary)
			}
			for _, r := range rep.Timeline {
				assert.NotEqual(t, observers.KindLimit, r.Kind, "no limit met outside a probe: %s", r.Summary)
			}
			first := probes[0]
			if c.want == "" {
				assert.Equal(t, packs.Passed, first.Verdict, "%s %v", first.Reason, first.Findings)
				assert.Empty(t, limitFindingsOf(rep))
				return
			}
			require.Equal(t, packs.Failed, first.Verdict, "%s", first.Reason)
			require.Len(t, first.Findings, 1, "the call itself succeeded: the limit is the only finding")
			f := first.Findings[0]
			assert.Equal(t, c.want, f.Message)
			assert.Equal(t, c.sev, f.Severity)
			assert.Equal(t, "CWE-770", f.CWE)
			assert.Equal(t, report.Fingerprint("USER-FIRST-CALL", f.Message), f.Fingerprint)
			require.Len(t, f.Evidence, 1)
			assert.Equal(t, "limits", f.Evidence[0].Observer)
			assert.Regexp(t, c.count, f.Evidence[0].Detail)
			t.Logf("%s: %s, in %d ms", first.Name, f.Evidence[0].Detail, first.Millis)
			assert.Equal(t, map[string][]packs.Finding{"first-call": {f}}, limitFindingsOf(rep), "reported once, in the probe where it happened")
		})
	}
}

// TestLimitMetInAProbePastItsDeadline: a probe whose own deadline passed
// is inconclusive, unless the server met a limit during it: what the
// limits counted happened, so the probe fails with that finding.
func TestLimitMetInAProbePastItsDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a limit met past a probe's deadline")
	}
	t.Parallel()
	limitsHere(t)
	waits := packs.Pack{Name: "waits", Doc: "calls read_note, then waits out its deadline", Probes: []packs.Probe{{
		ID: "WAITS-CALL", Name: "call-and-wait", Severity: packs.Low, Doc: "calls read_note and waits",
		Run: func(p *packs.Pass) {
			if _, err := p.Call("read_note", map[string]any{"name": "a"}); err != nil {
				p.Notef("read_note: %v", err)
			}
			<-p.Ctx.Done()
		},
	}}}
	var cfgs []engine.Config
	for _, flaws := range []string{"", "fork-bomb-on-call"} {
		cfg := fixtureConfig(t, flaws)
		cfg.Catalog, cfg.ProbeTimeout = []packs.Pack{waits}, 5*time.Second
		cfgs = append(cfgs, cfg)
	}
	reps := limitRuns(t, cfgs)
	good, bad := reps[0].Packs[0].Probes[0], reps[1].Packs[0].Probes[0]
	assert.Equal(t, packs.Inconclusive, good.Verdict, "%s", good.Reason)
	assert.Empty(t, good.Findings)
	assert.Equal(t, packs.Failed, bad.Verdict, "%s", bad.Reason)
	assert.Contains(t, bad.Reason, "the probe's deadline passed")
	require.Len(t, bad.Findings, 1)
	assert.Equal(t, "the server met its procs limit during probe call-and-wait: forks were refused at its process limit (64 tasks)", bad.Findings[0].Message)
	assert.Equal(t, packs.High, bad.Findings[0].Severity, "the limit's severity, not the probe's")
	assert.NotEmpty(t, bad.Findings[0].Fingerprint)
}

// TestMemoryLimitAtStartGraded: a server that goes past its memory limit
// before it answers initialize (killed, status 137) does not start, and
// that is graded as a limit met during a probe is: core's resource-limits
// fails in the pack's entry with the memory limit's finding (medium,
// naming the limit), beside the start error. The good server under the
// same limit starts and resource-limits passes.
func TestMemoryLimitAtStartGraded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server killed for memory before it answers initialize")
	}
	t.Parallel()
	limitsHere(t)
	var cfgs []engine.Config
	for _, flaws := range []string{"oom-at-start", ""} {
		cfg := fixtureConfig(t, flaws)
		cfg.Packs = []string{"core"}
		cfg.MaxProcs, cfg.MaxMemoryMiB = 64, 256
		cfg.StartTimeout = slowtest.Scale(30 * time.Second) // a bound for a hang, not a speed test
		cfgs = append(cfgs, cfg)
	}
	reps := make([]*report.Report, len(cfgs))
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		wg.Go(func() {
			e, err := engine.New(cfg)
			if err != nil {
				t.Error(err)
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), slowtest.Scale(3*time.Minute))
			defer cancel()
			reps[i] = e.Run(ctx, engine.Hooks{})
		})
	}
	wg.Wait()
	bad, good := reps[0], reps[1]
	require.NotNil(t, bad)
	require.NotNil(t, good)
	assert.Contains(t, bad.HarnessError, "before answering initialize", "still a start error")
	require.Len(t, bad.Packs, 1)
	require.Len(t, bad.Packs[0].Probes, 1, "%+v", bad.Packs[0].Probes)
	p := bad.Packs[0].Probes[0]
	assert.Equal(t, "CORE-RESOURCE-LIMITS", p.ID)
	assert.Equal(t, packs.Failed, p.Verdict, p.Reason)
	require.Len(t, p.Findings, 1)
	f := p.Findings[0]
	assert.Equal(t, "the server met its memory limit while it started, before it answered initialize: a process was killed for going past its memory limit (256 MiB)", f.Message)
	assert.Equal(t, packs.Medium, f.Severity)
	assert.Equal(t, "CWE-770", f.CWE)
	assert.NotEmpty(t, f.Fingerprint)
	require.Len(t, f.Evidence, 1)
	assert.Regexp(t, memoryCount, f.Evidence[0].Detail)

	require.Empty(t, good.HarnessError)
	assert.Empty(t, limitFindingsOf(good))
	for _, p := range good.Packs[0].Probes {
		if p.ID == "CORE-RESOURCE-LIMITS" {
			assert.Equal(t, packs.Passed, p.Verdict, "%s %v", p.Reason, p.Findings)
		}
	}
}
