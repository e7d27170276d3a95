package engine

import (
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// startLimitsWhere is where a limit met by a start that failed happened.
const startLimitsWhere = "while it started, before it answered initialize"

// gradeStartLimits judges the process and memory limits a server met while
// it started and failed to (a memory limit that killed it before it
// answered initialize): as a limit met during a probe is graded in that
// probe, this one is graded in the probe that judges what no probe owned
// (Pack.StartLimits: core's resource-limits), recorded in the failed
// start's pack entry beside its start error. The limits' records go with
// it; without such a probe in the catalogue they go to the timeline.
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
	owner, probe, ok := e.startLimitsProbe()
	if len(fs) == 0 || !ok {
		e.toTimeline(recs)
		return
	}
	res := report.Probe{ID: probe.ID, Name: probe.Name, Doc: probe.Doc, Severity: probe.Severity, CWE: probe.CWE,
		Verdict: packs.Failed, Reason: "the server did not start: graded from what its containment counted", Findings: fs, Observations: recs}
	e.fingerprint(owner, probe.ID, &res)
	e.record(pr.idx, pr.pack.Name, res)
}

// startLimitsProbe is the rule of a limit no probe owned: the probe the
// first catalogue pack with one names as its StartLimits, and that pack.
func (e *Engine) startLimitsProbe() (packs.Pack, packs.Probe, bool) {
	for _, pk := range e.cfg.catalog() {
		for _, p := range pk.Probes {
			if pk.StartLimits != "" && p.ID == pk.StartLimits {
				return pk, p, true
			}
		}
	}
	return packs.Pack{}, packs.Probe{}, false
}
