package core_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/slowtest"
	"github.com/sealmark/sealmark/packs"
)

// TestResourceLimits proves resource-limits both ways, under limits of 64
// tasks and 256 MiB: a server that fork-bombs at its start, before any
// probe, is refused forks (high), one whose child touches 512 MiB there has
// it killed (medium), and the good fixture meets neither and passes, naming
// the limits. Each hit is reported once: no other core probe reports it.
// A server that fork-bombs on its first tools/call meets the limit during
// a core probe: that probe fails with the finding, and resource-limits,
// which judges only what no probe owned, passes and says where it went.
func TestResourceLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: resource-limits both ways: a fork bomb and a 512 MiB child under tight limits")
	}
	t.Parallel()
	iso := contain.Probe().For(contain.Options{Cgroup: true, NetNS: true, MaxProcs: 64, MaxMemory: 256 << 20})
	for _, l := range []string{"pids.max", "memory.max"} {
		if !iso.Enforces(l) {
			t.Skipf("the cgroup leaf here sets no %s, so no limit to meet: %s", l, iso.Line())
		}
	}
	self, err := os.Executable()
	require.NoError(t, err)
	const (
		procs  = "the server met its procs limit while no probe ran (its start, or between probes): forks were refused at its process limit (64 tasks)"
		memory = "the server met its memory limit while no probe ran (its start, or between probes): a process was killed for going past its memory limit (256 MiB)"
	)
	cases := []struct {
		flaws, want string
		sev         packs.Severity
	}{
		{"", "", 0},
		{"fork-bomb", procs, packs.High},
		{"memory-hog", memory, packs.Medium},
		{"fork-bomb-on-call", "", 0},
	}
	reps := make([]*report.Report, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		dir := t.TempDir()
		wg.Go(func() {
			e, err := engine.New(engine.Config{Catalog: catalogue.All,
				Command: self, Args: []string{fixture.Verb, "-flaws=" + c.flaws},
				Packs: []string{"core"}, SandboxDir: dir, MaxProcs: 64, MaxMemoryMiB: 256,
				StartTimeout: slowtest.Scale(10 * time.Second), CallTimeout: 5 * time.Second,
				StdinGrace: 500 * time.Millisecond, TermGrace: 500 * time.Millisecond,
			})
			if err != nil {
				t.Error(err)
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), runBound)
			defer cancel()
			reps[i] = e.Run(ctx, engine.Hooks{})
		})
	}
	wg.Wait()
	for i, c := range cases {
		t.Run(cmpOr(c.flaws, "good"), func(t *testing.T) {
			rep := reps[i]
			require.NotNil(t, rep)
			require.Empty(t, rep.HarnessError)
			p := probeByID(t, rep, "CORE-RESOURCE-LIMITS")
			// The limit is what the server met, not a crash: the other
			// probes still ran against a live server.
			sweep := probeByID(t, rep, "CORE-TOOL-SWEEP")
			assert.NotEqual(t, packs.Errored, sweep.Verdict, "%s", sweep.Reason)
			assert.NotEqual(t, packs.Inconclusive, sweep.Verdict, "%s", sweep.Reason)
			others := limitFindings(rep)
			delete(others, "resource-limits")
			switch c.flaws {
			case "":
				assert.Equal(t, packs.Passed, p.Verdict, "%s %v", p.Reason, p.Findings)
				assert.Equal(t, []string{"limits enforced: 64 tasks, 256 MiB"}, p.Notes)
				assert.Empty(t, others)
				return
			case "fork-bomb-on-call":
				assert.Equal(t, packs.Passed, p.Verdict, "%s %v", p.Reason, p.Findings)
				assert.Contains(t, p.Notes, "limits enforced: 64 tasks, 256 MiB")
				assert.Contains(t, p.Notes, "1 limit record(s) met during probes are judged in those probes")
				require.Len(t, others, 1, "one probe made the first call: %v", others)
				for name, fs := range others {
					require.Len(t, fs, 1, "%s: %v", name, fs)
					assert.Equal(t, "the server met its procs limit during probe "+name+": forks were refused at its process limit (64 tasks)", fs[0].Message)
					assert.Equal(t, packs.High, fs[0].Severity)
				}
				return
			}
			assert.Equal(t, packs.Passed, sweep.Verdict, "%s", sweep.Reason)
			require.Equal(t, packs.Failed, p.Verdict, "%s", p.Reason)
			require.Len(t, p.Findings, 1, "one limit met, once")
			f := p.Findings[0]
			assert.Equal(t, c.want, f.Message)
			assert.Equal(t, c.sev, f.Severity)
			assert.Equal(t, "CWE-770", f.CWE)
			require.Len(t, f.Evidence, 1)
			assert.Regexp(t, `^[1-9][0-9]* (forks refused|processes killed) `, f.Evidence[0].Detail, "the count is the evidence")
			assert.Empty(t, others, "the start's hit is resource-limits' alone")
		})
	}
}

// limitFindings returns the CWE-770 findings of the core pack, by probe name.
func limitFindings(rep *report.Report) map[string][]packs.Finding {
	out := map[string][]packs.Finding{}
	for _, p := range rep.Packs[0].Probes {
		for _, f := range p.Findings {
			if f.CWE == "CWE-770" {
				out[p.Name] = append(out[p.Name], f)
			}
		}
	}
	return out
}

func cmpOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func probeByID(t *testing.T, rep *report.Report, id string) report.Probe {
	t.Helper()
	for _, p := range rep.Packs[0].Probes {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("%s did not run", id)
	return report.Probe{}
}
