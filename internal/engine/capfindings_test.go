package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// perNotification is a pack whose probe reports every notifications/message
// the server sent as a finding of its own, the way a careless probe would:
// a flood of notifications is a flood of findings.
var perNotification = packs.Pack{Name: "noisy", Doc: "one finding per notification", Probes: []packs.Probe{{
	ID: "TEST-PER-NOTIFICATION", Name: "per-notification", Doc: "reports each notification", Severity: packs.Low,
	Run: func(p *packs.Pass) {
		// Wait for the flood to arrive whole (bounded): a ping is answered after it.
		_, _ = p.Request("ping", nil)
		for _, f := range p.Server.Frames(0) {
			if bytes.Contains(f.Data, []byte(`"notifications/message"`)) {
				p.Reportf("an unrequested notification on line %d", f.Seq+1)
			}
		}
	},
}}}

// lineOf is the line number a per-notification finding names.
func lineOf(t *testing.T, msg string) int {
	var n int
	_, err := fmt.Sscanf(msg, "an unrequested notification on line %d", &n)
	require.NoError(t, err, msg)
	return n
}

// TestFindingCap runs a probe that reports each notification against the
// notification-flood fixture (20,000 notifications): its result lists the
// first MaxProbeFindings findings (folded into one, since they differ by a
// line number alone) and one aggregate that counts the rest, with a
// fingerprint that does not depend on the count; the same probe
// against the fixture without the flood reports nothing.
func TestFindingCap(t *testing.T) {
	t.Parallel()
	for _, flaws := range []string{"notification-flood", ""} {
		t.Run(map[bool]string{true: "flood", false: "quiet"}[flaws != ""], func(t *testing.T) {
			t.Parallel()
			cfg := fixtureConfig(t, flaws)
			cfg.StartTimeout, cfg.CallTimeout = 30*time.Second, 30*time.Second
			cfg.Catalog = []packs.Pack{perNotification}
			e, err := engine.New(cfg)
			require.NoError(t, err)
			rep := e.Run(context.Background(), engine.Hooks{})
			require.Empty(t, rep.HarnessError)
			probe := rep.Packs[0].Probes[0]
			if flaws == "" {
				assert.Equal(t, packs.Passed, probe.Verdict)
				assert.Empty(t, probe.Findings)
				return
			}
			// The 100 listed differ only by a line number, which the
			// fingerprint leaves out: the report folds them into one that
			// says how often it was seen, beside the aggregate.
			require.Len(t, probe.Findings, 2)
			first, agg := probe.Findings[0], probe.Findings[1]
			require.Equal(t, 100, engine.MaxProbeFindings, "the messages below assume the cap")
			assert.Equal(t, 3, lineOf(t, first.Message))
			assert.Equal(t, "seen 100 times in this probe (one finding: the same rule and the same thing wrong)", first.Evidence[len(first.Evidence)-1].Detail)
			assert.Equal(t, "and 19,900 more like it: findings past the first 100 of this probe are counted, not listed", agg.Message)
			assert.Equal(t, packs.Low, agg.Severity)
			require.Len(t, agg.Evidence, 1)
			assert.True(t, strings.HasPrefix(agg.Evidence[0].Detail, "the first not listed: an unrequested notification on line "), agg.Evidence[0].Detail)
			assert.Equal(t, report.Fingerprint("TEST-PER-NOTIFICATION", "findings past the per-probe cap"), agg.Fingerprint)

			var buf bytes.Buffer
			require.NoError(t, report.WriteJSON(&buf, rep))
			assert.Less(t, buf.Len(), 200<<10, "the JSON report stays small")
			var back map[string]any
			require.NoError(t, json.Unmarshal(buf.Bytes(), &back))
			assert.Equal(t, 1, strings.Count(buf.String(), "more like it"))
		})
	}
}
