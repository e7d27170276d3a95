package engine

import (
	"context"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// runRestarted runs pk's Restarted probes (core's tool-drift) as steps of
// t, after the pack's start closed, on a start of their own made when the
// first of them runs: the server is started once more, without the
// canaries, so that they can compare it with the run's first start
// (Pass.First), and a server that changes its tools after it was approved
// (a rug pull) is caught whichever packs run. Their results go to the
// report's pack entry idx; when that start fails, each is inconclusive.
func (e *Engine) runRestarted(ctx context.Context, t T, pk packs.Pack, idx int, h Hooks) {
	var pr *packRun
	var err error
	defer func() {
		if pr != nil && err == nil {
			e.hold(pr, true) // handed on to the next pack that shares a start
		}
	}()
	for _, probe := range pk.Restarted {
		t.Run(probe.Name, func(t T) {
			if pr == nil && err == nil {
				pr, err = e.startPack(ctx, pk, packs.Start{}, idx)
			}
			var res report.Probe
			if err != nil {
				res = report.Probe{ID: probe.ID, Name: probe.Name, Doc: probe.Doc, Severity: probe.Severity, CWE: probe.CWE,
					Verdict: packs.Inconclusive, Reason: "the second start, which it compares with the first, failed: " + err.Error()}
				e.record(idx, pk.Name, res)
			} else {
				res = pr.runProbe(ctx, probe)
			}
			if h.Probe != nil {
				h.Probe(pk.Name, res)
			}
			e.show(t, probe, res)
		})
	}
}
