package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/packs"
)

// TestSlowIsRetried: a probe that ends inconclusive because a wait of its
// own was too short for the server (Pass.Slow) runs once more with Scale
// 3, as one whose request got no answer does, and the retry's verdict is
// reported with a note; one that is too slow again stays inconclusive. A
// probe that is inconclusive for another reason is not retried.
func TestSlowIsRetried(t *testing.T) {
	var scales []int
	probe := func(id string, run func(p *packs.Pass)) packs.Probe {
		return packs.Probe{ID: id, Name: strings.ToLower(strings.TrimPrefix(id, "TEST-")), Doc: "waits", Severity: packs.Medium, Run: run}
	}
	cfg := fixtureConfig(t, "")
	cfg.Catalog = []packs.Pack{{Name: "slow", Doc: "waits of its own", Probes: []packs.Probe{
		probe("TEST-SLOW-ONCE", func(p *packs.Pass) {
			scales = append(scales, p.Scale)
			if p.Scaled(1) < 3 {
				p.Slow()
				p.Inconclusive("the server took longer than %d", p.Scaled(1))
			}
		}),
		probe("TEST-SLOW-ALWAYS", func(p *packs.Pass) {
			p.Slow()
			p.Inconclusive("the server took longer than %d", p.Scaled(1))
		}),
		probe("TEST-UNDECIDED", func(p *packs.Pass) { p.Inconclusive("nothing to judge") }),
	}}}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	require.Len(t, rep.Packs, 1)
	got := rep.Packs[0].Probes
	require.Len(t, got, 3)
	assert.Equal(t, []int{1, 3}, scales, "the first attempt at Scale 1, the retry at 3")
	assert.Equal(t, packs.Passed, got[0].Verdict, got[0].Reason)
	require.NotEmpty(t, got[0].Notes)
	assert.Equal(t, "retried with 3x the call timeout and probe deadline after: the server took longer than 1", got[0].Notes[0])
	assert.Equal(t, packs.Inconclusive, got[1].Verdict)
	assert.Equal(t, "the server took longer than 3", got[1].Reason)
	assert.Equal(t, packs.Inconclusive, got[2].Verdict)
	assert.Empty(t, got[2].Notes, "not retried")
}
