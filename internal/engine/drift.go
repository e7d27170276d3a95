package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// driftProbe compares the tool list of the drift check's start with the
// first start's.
func (e *Engine) driftProbe() packs.Probe {
	return packs.Probe{
		ID:       driftID,
		Name:     driftName,
		Severity: packs.High,
		CWE:      "CWE-494",
		Doc:      "the tool list (names, descriptions, schemas) of a later start must equal the first start's; values computed at start (times, ids, nonces) aside",
		Run: func(p *packs.Pass) {
			e.mu.Lock()
			first := e.surface
			e.mu.Unlock()
			if first == nil || first == p.Surface {
				p.NotApplicable("no first start to compare with")
				return
			}
			changes, ignored := drift(first.Tools, p.Surface.Tools, time.Now())
			for _, d := range changes {
				p.Reportf("the tool list changed since the first start: %s", d).Evidencef("tools/list", "%s", d)
			}
			if len(ignored) > 0 {
				shown := ignored[:min(len(ignored), maxIgnoredShown)]
				more := ""
				if len(ignored) > len(shown) {
					more = fmt.Sprintf("; and %d more", len(ignored)-len(shown))
				}
				p.Notef("values that differ between the starts but are computed at start (a time, an epoch near now, a uuid or random id, a hex nonce) are no change and were ignored: %s%s", strings.Join(shown, "; "), more)
			}
		},
	}
}

// maxIgnoredShown bounds how many ignored values the drift note names.
const maxIgnoredShown = 10

// checkDrift is the run-level drift check, reported as core's last probe
// (tool-drift): it starts the server once more, without canaries, and
// compares its tool list with the first start's, so a server that changes
// its tools after it was approved (a rug pull) is caught, whichever packs
// run. The result goes to the report's pack entry of core (idx).
func (e *Engine) checkDrift(ctx context.Context, core packs.Pack, idx int) report.Probe {
	probe := e.driftProbe()
	pr, err := e.startPack(ctx, core, packs.Start{}, idx)
	if err != nil {
		res := report.Probe{ID: probe.ID, Name: probe.Name, Doc: probe.Doc, Severity: probe.Severity, CWE: probe.CWE,
			Verdict: packs.Inconclusive, Reason: "the second start, which the drift check compares, failed: " + err.Error()}
		e.record(idx, core.Name, res)
		return res
	}
	defer pr.Close()
	return pr.runProbe(ctx, probe)
}

// drift lists the differences between two tool lists (packs.ToolChanges).
func drift(before, after []packs.Tool, now time.Time) (changes, ignored []string) {
	return packs.ToolChanges(before, after, now)
}
