package effects_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/effectsserver"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/effects"
)

func TestMain(m *testing.M) {
	contain.Dispatch()
	effectsserver.Dispatch()
	smbin.Dispatch()
	os.Exit(m.Run())
}

func TestPackDefinition(t *testing.T) {
	for _, err := range effects.Pack.Check() {
		t.Error(err)
	}
}

// run runs the effects pack in a sandbox under dir; it is safe to call
// from any goroutine.
func run(dir string, active bool, command string, args ...string) (*report.Report, error) {
	e, err := engine.New(engine.Config{
		Command: command, Args: args,
		Catalog: []packs.Pack{effects.Pack}, Packs: []string{"effects"}, Active: active,
		SandboxDir: dir, StartTimeout: 20 * time.Second, CallTimeout: 5 * time.Second,
		StdinGrace: time.Second, TermGrace: time.Second,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return e.Run(ctx, engine.Hooks{}), nil
}

// expect checks a report against the probes that must fail, each with
// findings containing the given texts at the given severity ("high: ...");
// every other probe must pass or be not applicable. A missing finding
// fails as loudly as an unexpected one.
func expect(t *testing.T, rep *report.Report, want map[string][]string) {
	t.Helper()
	require.Empty(t, rep.HarnessError)
	require.Len(t, rep.Packs, 1)
	seen := map[string]bool{}
	for _, p := range rep.Packs[0].Probes {
		seen[p.ID] = true
		texts, expected := want[p.ID]
		if expected && p.Verdict != packs.Failed {
			t.Errorf("%s: verdict %s (%s), want fail with %q", p.ID, p.Verdict, p.Reason, texts)
			continue
		}
		for _, text := range texts {
			sev, msg, _ := strings.Cut(text, ": ")
			if !slices.ContainsFunc(p.Findings, func(f packs.Finding) bool {
				return f.Severity.String() == sev && strings.Contains(f.Message, msg)
			}) {
				t.Errorf("%s: findings %v, want a %s one containing %q", p.ID, p.Findings, sev, msg)
			}
		}
		switch {
		case !expected && p.Verdict == packs.Failed:
			t.Errorf("%s: unexpected fail: %v", p.ID, p.Findings)
		case !expected && p.Verdict != packs.Passed && p.Verdict != packs.NotApplicable:
			t.Errorf("%s: verdict %s (%s), want pass", p.ID, p.Verdict, p.Reason)
		}
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("%s: probe did not run", id)
		}
	}
}

// twin is one fixture server and the findings it must produce.
type twin struct {
	flaws string
	want  map[string][]string
}

// runTwins runs the twins, a few at a time, and checks each as a subtest.
func runTwins(t *testing.T, twins []twin) {
	self, err := os.Executable()
	require.NoError(t, err)
	reports := make([]*report.Report, len(twins))
	errs := make([]error, len(twins))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, tw := range twins {
		dir := t.TempDir()
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			reports[i], errs[i] = run(dir, false, self, effectsserver.Verb, "-flaws="+tw.flaws, "-allow={upstream}",
				"-outside=127.0.0.1:9", "-dns=127.0.0.53:53")
		})
	}
	wg.Wait()
	for i, tw := range twins {
		name := tw.flaws
		if name == "" {
			name = "clean"
		}
		t.Run(name, func(t *testing.T) {
			require.NoError(t, errs[i])
			expect(t, reports[i], tw.want)
		})
	}
}
