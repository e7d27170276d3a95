package core_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/slowtest"
	"github.com/sealmark/sealmark/packs"
)

// TestSlowAnswerIsRetried: a server slowed past the call timeout (a loaded
// machine: resources/list answers after 3 s, the call timeout is 2 s) gets
// its verdict from a second try with three times the bounds, and the
// report says it was retried; a server that never answers stays
// inconclusive after the one retry. The old engine left the slow one
// inconclusive.
func TestSlowAnswerIsRetried(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server slowed past the call timeout, retried with three times the bounds")
	}
	t.Parallel()
	self, err := os.Executable()
	require.NoError(t, err)
	resources := func(delay string) report.Probe {
		e, err := engine.New(engine.Config{
			Command: self, Args: []string{fixture.Verb, "-flaws=full", "-list-delay=" + delay},
			Catalog: catalogue.All, Packs: []string{"core"}, OnlyProbes: []string{"resources"}, SandboxDir: t.TempDir(),
			StartTimeout: slowtest.Scale(20 * time.Second), CallTimeout: 2 * time.Second,
			StdinGrace: 500 * time.Millisecond, TermGrace: 500 * time.Millisecond,
		})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), runBound)
		defer cancel()
		rep := e.Run(ctx, engine.Hooks{})
		require.Empty(t, rep.HarnessError)
		for _, p := range rep.Packs[0].Probes {
			if p.ID == "CORE-RESOURCES" {
				return p
			}
		}
		t.Fatalf("no CORE-RESOURCES in the report")
		return report.Probe{}
	}
	retried := func(p report.Probe) bool {
		return len(p.Notes) > 0 && strings.HasPrefix(p.Notes[0], "retried with 3x the call timeout and probe deadline after: resources/list got no answer within 2s")
	}
	slow := resources("3s")
	assert.Equal(t, packs.Passed, slow.Verdict, slow.Reason)
	assert.True(t, retried(slow), "notes: %q", slow.Notes)

	hung := resources("10m")
	assert.Equal(t, packs.Inconclusive, hung.Verdict)
	assert.Contains(t, hung.Reason, "resources/list got no answer within 6s")
	assert.True(t, retried(hung), "notes: %q", hung.Notes)
}
