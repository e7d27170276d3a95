package core_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/slowtest"
	"github.com/sealmark/sealmark/packs"
)

// metadataBudget is a generous ceiling for judging 3,000 tools' metadata:
// the check was quadratic and took 424 s for them; linear, it takes tens of
// milliseconds (BenchmarkToolMetadata). The ceiling only catches a return
// to quadratic time on a loaded machine.
const metadataBudget = 15 * time.Second

// TestToolVolume runs core against 3,000 tools on one page and against a
// tools/list that never stops paging: the metadata of every tool read is
// judged within the budget, the one steering description among 3,000 is
// found, and the endless pages stop at the bound with a finding that says so.
func TestToolVolume(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: core against 3,000 tools and a tools/list that never stops paging")
	}
	t.Parallel()
	cases := []struct {
		flaws string
		want  map[string]string // probe id → a finding must contain this
		tools string            // the metadata probe's note
	}{
		{"many-tools", map[string]string{"CORE-TOOL-METADATA": `tool "entry_2999" description steers the model away from tool "entry_0000"`}, "3004 tools checked"},
		{"endless-pages", map[string]string{"CORE-TOOLS-LIST": "still returning a nextCursor after 100 pages"}, "3000 tools checked"},
	}
	reps := make([]*report.Report, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Go(func() {
			rep, err := volumeReport(c.flaws)
			require.NoError(t, err)
			reps[i] = rep
		})
	}
	wg.Wait()
	for i, c := range cases {
		t.Run(c.flaws, func(t *testing.T) {
			rep := reps[i]
			require.Empty(t, rep.HarnessError)
			require.Len(t, rep.Packs, 1)
			for _, p := range rep.Packs[0].Probes {
				want, expected := c.want[p.ID]
				switch {
				case expected && (p.Verdict != packs.Failed || !anyFinding(p, want)):
					t.Errorf("%s: verdict %s, findings %v; want a finding containing %q", p.ID, p.Verdict, p.Findings, want)
				case expected && p.ID == "CORE-TOOL-METADATA" && len(p.Findings) != 1:
					t.Errorf("%s: %d findings %v, want exactly one", p.ID, len(p.Findings), p.Findings)
				case !expected && p.Verdict == packs.Failed:
					t.Errorf("%s: unexpected fail: %v", p.ID, p.Findings)
				}
				if p.ID != "CORE-TOOL-METADATA" {
					continue
				}
				if !strings.Contains(strings.Join(p.Notes, "; "), c.tools) {
					t.Errorf("%s: notes %q, want %q", p.ID, p.Notes, c.tools)
				}
				if d := time.Duration(p.Millis) * time.Millisecond; d > metadataBudget {
					t.Errorf("%s took %s, over the budget of %s", p.ID, d, metadataBudget)
				}
			}
		})
	}
}

// volumeReport runs the core pack bare against the fixture with flaws.
func volumeReport(flaws string) (*report.Report, error) {
	return runVolume(flaws, engine.Hooks{})
}

// volumeStart is the start timeout of volumeReport's runs.
const volumeStart = 20 * time.Second

// runVolume is volumeReport with hooks.
func runVolume(flaws string, h engine.Hooks) (*report.Report, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	e, err := engine.New(engine.Config{Catalog: catalogue.All,
		Command: self, Args: []string{fixture.Verb, "-flaws=" + flaws},
		Packs: []string{"core"}, NoSandbox: true,
		StartTimeout: slowtest.Scale(volumeStart), CallTimeout: 5 * time.Second,
		StdinGrace: 500 * time.Millisecond, TermGrace: 500 * time.Millisecond,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return e.Run(ctx, h), nil
}
