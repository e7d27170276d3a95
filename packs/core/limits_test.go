package core_test

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// TestResourceLimits proves resource-limits both ways, under limits of 64
// tasks and 256 MiB: a server that starts 300 children at once is refused
// some (high), one whose child touches 512 MiB has it killed (medium), and
// the good fixture meets neither and passes, naming the limits.
func TestResourceLimits(t *testing.T) {
	t.Parallel()
	iso := contain.Probe().For(contain.Options{Cgroup: true, NetNS: true, MaxProcs: 64, MaxMemory: 256 << 20})
	for _, c := range []string{"pids", "memory"} {
		if !slices.Contains(iso.CgroupControllers, c) {
			t.Skipf("the cgroup leaf here has no %s controller, so no limit to meet: %s", c, iso.Line())
		}
	}
	self, err := os.Executable()
	require.NoError(t, err)
	cases := []struct {
		flaws, want string
		sev         packs.Severity
	}{
		{"", "", 0},
		{"fork-bomb", "the server met its procs limit: ", packs.High},
		{"memory-hog", "the server met its memory limit: ", packs.Medium},
	}
	reps := make([]*report.Report, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		dir := t.TempDir()
		wg.Go(func() {
			e, err := engine.New(engine.Config{
				Command: self, Args: []string{fixture.Verb, "-flaws=" + c.flaws},
				Packs: []string{"core"}, SandboxDir: dir, MaxProcs: 64, MaxMemoryMiB: 256,
				StartTimeout: 10 * time.Second, CallTimeout: 2 * time.Second,
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
			if c.want == "" {
				assert.Equal(t, packs.Passed, p.Verdict, "%s %v", p.Reason, p.Findings)
				assert.Contains(t, p.Notes, "limits enforced: 64 tasks, 256 MiB")
				return
			}
			require.Equal(t, packs.Failed, p.Verdict, "%s", p.Reason)
			require.NotEmpty(t, p.Findings)
			for _, f := range p.Findings {
				assert.Contains(t, f.Message, c.want)
				assert.Equal(t, c.sev, f.Severity)
			}
			// The limit is what the server met, not a crash: the other
			// probes still ran against a live server.
			sweep := probeByID(t, rep, "CORE-TOOL-SWEEP")
			assert.Equal(t, packs.Passed, sweep.Verdict, "%s", sweep.Reason)
		})
	}
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
