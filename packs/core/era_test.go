package core_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// TestEraWithoutRace: a server that reads its input only 1.5 s after it
// starts (past the 500 ms discover wait) gets the same era and the same
// verdicts as without the delay: a dual-era server, which would answer a
// legacy initialize too and settle into the legacy protocol, is never sent
// one, and a legacy server still gets its handshake.
func TestEraWithoutRace(t *testing.T) {
	t.Parallel()
	pairs := []struct{ flaws, era string }{
		{"modern-dual-era", "modern"},
		{"", "legacy"},
	}
	type run struct {
		rep *report.Report
		err error
	}
	runs := make([][2]run, len(pairs))
	var wg sync.WaitGroup
	for i, pr := range pairs {
		for j, flaws := range []string{pr.flaws, join(pr.flaws, "slow-start")} {
			dir := t.TempDir()
			wg.Go(func() {
				rep, err := coreReport(dir, flaws, true)
				runs[i][j] = run{rep, err}
			})
		}
	}
	wg.Wait()
	for i, pr := range pairs {
		t.Run(pr.era, func(t *testing.T) {
			verdicts := [2]map[string]packs.Verdict{}
			for j, r := range runs[i] {
				require.NoError(t, r.err)
				require.Empty(t, r.rep.HarnessError)
				assert.Equal(t, pr.era, r.rep.Protocol.Era, "slow start: %t", j == 1)
				verdicts[j] = map[string]packs.Verdict{}
				for _, p := range r.rep.Packs[0].Probes {
					verdicts[j][p.ID] = p.Verdict
				}
			}
			assert.Equal(t, verdicts[0], verdicts[1], "the same verdicts with and without the slow start")
		})
	}
}

func join(flaws, more string) string {
	if flaws == "" {
		return more
	}
	return flaws + "," + more
}
