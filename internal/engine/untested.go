package engine

import (
	"fmt"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// untestedProbe is the go test line of a probe that ended inconclusive at
// or above the fail bar, "" for any other result or when the run allows
// it (Config.AllowInconclusive): such a probe fails its step, as it keeps
// sealmark run from passing (report.Report.Untested, exit 3).
func (e *Engine) untestedProbe(res report.Probe) string {
	if res.Verdict != packs.Inconclusive || e.cfg.AllowInconclusive || res.Severity < e.FailOn() {
		return ""
	}
	return fmt.Sprintf("%s %s: inconclusive, so untested (at or above fail_on %s; AllowInconclusive accepts it): %s",
		res.ID, res.Severity, e.FailOn(), e.Redact(res.Reason))
}

// untestedPack is the go test line of a pack start whose every probe was
// inconclusive or not applicable, at least one inconclusive
// (report.PackIncomplete); "" otherwise or when the run allows it.
func (e *Engine) untestedPack(name string, results []report.Probe) string {
	if e.cfg.AllowInconclusive || !report.PackIncomplete(report.Pack{Probes: results}) {
		return ""
	}
	return "sealmark: pack " + name + " INCOMPLETE: every probe was inconclusive or not applicable, so nothing in it was judged (AllowInconclusive accepts it)"
}
