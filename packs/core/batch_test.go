package core_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// TestBatchByRevision: JSON-RPC batches were required by MCP 2025-03-26
// only (added by it, removed by 2025-06-18; 2024-11-05 never had them). A
// server settled on 2024-11-05 that rejects a batch passes; one on
// 2025-03-26 that rejects it fails.
func TestBatchByRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the batch probe under three protocol revisions")
	}
	t.Parallel()
	cases := []struct {
		flaws, version, want string // want: "" for a pass
	}{
		{"only-2024-11-05", "2024-11-05", ""},
		{"only-2025-03-26", "2025-03-26", "protocol 2025-03-26 requires batches to be answered with an array"},
	}
	reps := make([]*report.Report, len(cases))
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		dir := t.TempDir()
		wg.Go(func() { reps[i], errs[i] = coreReport(dir, c.flaws, true) })
	}
	wg.Wait()
	for i, c := range cases {
		t.Run(c.version, func(t *testing.T) {
			require.NoError(t, errs[i])
			require.Empty(t, reps[i].HarnessError)
			assert.Equal(t, c.version, reps[i].Protocol.Version)
			for _, p := range reps[i].Packs[0].Probes {
				if p.ID != "CORE-BATCH" {
					continue
				}
				if c.want == "" {
					assert.Equal(t, packs.Passed, p.Verdict, "%v", p.Findings)
					return
				}
				require.Equal(t, packs.Failed, p.Verdict)
				require.Len(t, p.Findings, 1)
				assert.True(t, strings.Contains(p.Findings[0].Message, c.want), p.Findings[0].Message)
				return
			}
			t.Fatal("CORE-BATCH did not run")
		})
	}
}
