package core_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// TestHostileGraded checks the severity of hostile behaviour, so that the
// default fail bar (high) fails the run on what a reviewer would block: a
// server that crashes on an ordinary tool call, and one that floods the
// client with requests it declined; one unsolicited request of each kind
// stays medium (a warning) and the good server fails nothing.
func TestHostileGraded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the severity of a crashing and a flooding server, each a full core run")
	}
	t.Parallel()
	cases := []struct {
		flaws string
		probe string
		want  packs.Severity // the probe's highest finding; 0 for none
		exit  int            // at the default fail bar
	}{
		{"crash-on-call", "CORE-TOOL-SWEEP", packs.High, report.ExitFindings},
		{"asks-client-flood", "CORE-CLIENT-CAPABILITIES", packs.High, report.ExitFindings},
		{"close-stdout-on-call", "CORE-TOOL-SWEEP", packs.High, report.ExitFindings},
		{"asks-client", "CORE-CLIENT-CAPABILITIES", packs.Medium, report.ExitClean},
		// An undeclared feature serving content is medium (an empty list,
		// as the official Go SDK answers, is low: TestEmptyLists and the
		// sdkservers calibration pin it).
		{"resources-undeclared", "CORE-CAPABILITIES-SERVED", packs.Medium, report.ExitClean},
		{"", "CORE-TOOL-SWEEP", 0, report.ExitClean},
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
		rep := reps[i]
		var top packs.Severity
		for _, p := range rep.Packs[0].Probes {
			if p.ID != c.probe {
				continue
			}
			for _, f := range p.Findings {
				top = max(top, f.Severity)
			}
		}
		if c.want == 0 {
			for _, p := range rep.Packs[0].Probes {
				assert.Empty(t, p.Findings, "%q: %s", c.flaws, p.ID)
			}
		} else {
			assert.Equal(t, c.want, top, "%q: %s", c.flaws, c.probe)
		}
		assert.Equal(t, c.exit, report.ExitCode(rep, packs.High), "%q", c.flaws)
	}
}
