package engine

import (
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// limitFindings are the findings for the process and memory limits the
// server met during a probe, from the probe's own records: the engine
// judges them in the probe where they happen, whatever its pack, as it
// does the sandbox size limit. core's resource-limits judges only the
// records no probe owned (the start, between probes), so no hit is
// reported twice.
func limitFindings(probe string, recs []observers.Record) []packs.Finding {
	var out []packs.Finding
	for _, r := range recs {
		if f, ok := packs.LimitFinding(r, "during probe "+probe); ok {
			out = append(out, f)
		}
	}
	return out
}

// addLimitFindings puts the limit findings first in res, where the
// per-probe cap cannot fold them away, and fails the probe: what the
// limits counted happened, whatever else the probe could or could not
// judge (a pass, not applicable, its own deadline). An errored probe
// stays errored; its records keep the hit.
func addLimitFindings(res *report.Probe, fs []packs.Finding) {
	if len(fs) == 0 || res.Verdict == packs.Errored {
		return
	}
	res.Findings = append(fs, res.Findings...)
	res.Verdict = packs.Failed
}
