package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
)

// TestProbeSelection: --probes runs only the probes its globs match (by
// pack/name, name or ID), --skip-probes leaves out what its globs match,
// and a glob that matches nothing is an error naming the nearest probe.
func TestProbeSelection(t *testing.T) {
	names := func(cfg engine.Config) []string {
		t.Helper()
		e, err := engine.New(cfg)
		require.NoError(t, err)
		rep := e.Run(t.Context(), engine.Hooks{})
		var out []string
		for _, pk := range rep.Packs {
			for _, pr := range pk.Probes {
				out = append(out, pk.Name+"/"+pr.Name)
			}
		}
		return out
	}

	cfg := fixtureConfig(t, "echo-canary")
	cfg.OnlyProbes = []string{"core/secret-*", "CORE-INITIALIZE"}
	assert.Equal(t, []string{"core/initialize", "core/secret-echo"}, names(cfg))

	cfg = fixtureConfig(t, "echo-canary")
	cfg.OnlyProbes = []string{"initialize", "secret-echo", "core/tool-drift"}
	cfg.SkipProbes = []string{"CORE-SECRET-*"}
	assert.Equal(t, []string{"core/initialize", "core/tool-drift"}, names(cfg), "skip wins; the drift check is selected like a probe")

	cfg = fixtureConfig(t, "")
	cfg.OnlyProbes = []string{"core/secrt-echo"}
	_, err := engine.New(cfg)
	require.Error(t, err)
	assert.Equal(t, `--probes "core/secrt-echo" matches no probe (did you mean core/secret-echo?) (a glob over pack/name, name or ID; sealmark list shows them)`, err.Error())
}

// TestPlannedCountsWhatThePackReports: Planned is the number of results a
// pack's start reports, core's drift check included when selected (the
// progress line's total, which a count must never pass).
func TestPlannedCountsWhatThePackReports(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a full run per pack selection")
	}
	for _, tt := range []struct {
		name string
		only []string
	}{
		{"all of core", nil},
		{"with the drift check", []string{"core/initialize", "core/tool-drift"}},
		{"without it", []string{"core/initialize", "core/ping"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fixtureConfig(t, "")
			cfg.Packs = []string{"core"}
			cfg.OnlyProbes = tt.only
			e, err := engine.New(cfg)
			require.NoError(t, err)
			planned := e.Planned("core")
			reported := 0
			e.Run(t.Context(), engine.Hooks{Probe: func(string, report.Probe) { reported++ }})
			assert.Equal(t, reported, planned)
			assert.Zero(t, e.Planned("no-such-pack"))
		})
	}
}
