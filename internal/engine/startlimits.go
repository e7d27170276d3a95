package engine

import (
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/core"
)

// startLimitsWhere is where a limit met by a start that failed happened.
const startLimitsWhere = "while it started, before it answered initialize"

// gradeStartLimits judges the process and memory limits a server met while
// it started and failed to (a memory limit that killed it before it
// answered initialize): as a limit met during a probe is graded in that
// probe, this one is graded in core's resource-limits, which judges what
// no probe owned, recorded in the failed start's pack entry beside its
// start error. The limits' records go with it.
func (e *Engine) gradeStartLimits(pr *packRun) {
	if e.watch == nil || e.watch.limits == nil || pr.extra {
		return
	}
	var recs []observers.Record
	var fs []packs.Finding
	for _, r := range e.watch.limits.Collect("") {
		recs = append(recs, r)
		if f, ok := packs.LimitFinding(r, startLimitsWhere); ok {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		e.toTimeline(recs)
		return
	}
	probe := resourceLimitsProbe()
	res := report.Probe{ID: probe.ID, Name: probe.Name, Doc: probe.Doc, Severity: probe.Severity, CWE: probe.CWE,
		Verdict: packs.Failed, Reason: "the server did not start: graded from what its containment counted", Findings: fs, Observations: recs}
	e.fingerprint(probe.ID, &res)
	e.record(pr.idx, pr.pack.Name, res)
}

// resourceLimitsProbe is core's resource-limits, the rule of a limit no
// probe owned.
func resourceLimitsProbe() packs.Probe {
	for _, p := range core.Pack.Probes {
		if p.ID == "CORE-RESOURCE-LIMITS" {
			return p
		}
	}
	panic("core has no CORE-RESOURCE-LIMITS")
}
