package report

import "github.com/sealmark/sealmark/packs"

// Untested checks: a probe that ended inconclusive judged nothing. An
// INCOMPLETE pack (PackIncomplete) and an inconclusive probe at or above
// the fail bar (Report.Untested) keep a run from passing: ExitCode makes
// it ExitHarness unless Report.AllowInconclusive, and every writer says so
// (docs/reports.md, "Untested checks: INCOMPLETE").

// PackIncomplete reports whether pk gave no verdict of its own: at least
// one probe ended inconclusive and every other probe was not applicable.
// Such a pack is INCOMPLETE in every output: its checks were selected and
// did not run to a judgement. A pack whose probes are all not applicable
// is not applicable, not incomplete; a pack with no probes is neither.
func PackIncomplete(pk Pack) bool {
	inconclusive := false
	for _, pr := range pk.Probes {
		switch pr.Verdict {
		case packs.Inconclusive:
			inconclusive = true
		case packs.NotApplicable:
		default:
			return false
		}
	}
	return inconclusive
}

// Untested reports whether pr, a probe of pk, is an untested check that
// keeps the run from passing at fail bar bar: it ended inconclusive, the
// report does not allow that (Report.AllowInconclusive), and either its
// severity is at or above bar or its pack is INCOMPLETE. ExitCode makes
// such a run ExitHarness, JUnit gives the probe an error, SARIF an error
// notification.
func (rep *Report) Untested(pk Pack, pr Probe, bar packs.Severity) bool {
	if pr.Verdict != packs.Inconclusive || rep.AllowInconclusive {
		return false
	}
	return pr.Severity >= bar || PackIncomplete(pk)
}

// RunIncomplete reports whether rep tested something but left a check
// untested (Report.Untested) at fail bar failOn, and nothing else decides
// its exit code: no harness error, no finding or stale baseline entry
// failing it. Such a run's exit code is ExitHarness; the scan table and
// the HTML report call it INCOMPLETE.
func RunIncomplete(rep *Report, failOn packs.Severity) bool {
	if rep == nil || rep.HarnessError != "" || ExitCode(rep, failOn) != ExitHarness {
		return false
	}
	for _, pk := range rep.Packs {
		for _, pr := range pk.Probes {
			if pr.Verdict == packs.Passed || pr.Verdict == packs.Failed {
				return true
			}
		}
	}
	return false
}

// UntestedChecks lists the checks that keep rep from passing at fail bar
// failOn, one line each: "pack fs INCOMPLETE" for an INCOMPLETE pack, then
// "ID severity: inconclusive: reason" for each of its probes and each
// inconclusive probe at or above failOn (see Report.Untested).
func UntestedChecks(rep *Report, failOn packs.Severity) []string {
	var out []string
	for _, pk := range rep.Packs {
		if PackIncomplete(pk) && !rep.AllowInconclusive {
			name := clean(pk.Name)
			if pk.Start != "" {
				name += "/" + clean(pk.Start)
			}
			out = append(out, "pack "+name+" INCOMPLETE: every probe inconclusive or not applicable")
		}
		for _, pr := range pk.Probes {
			if rep.Untested(pk, pr, failOn) {
				out = append(out, clean(pr.ID)+" "+pr.Severity.String()+": inconclusive: "+firstLine(pr.Reason))
			}
		}
	}
	return out
}

// incompleteNotification says pack pk is INCOMPLETE: an error, since it
// keeps the run from passing, or a warning under AllowInconclusive. Code
// scanning lists tool execution notifications on the tool's status page.
func incompleteNotification(rep *Report, pk Pack) sarifNotification {
	name := clean(pk.Name)
	if pk.Start != "" {
		name += "/" + clean(pk.Start)
	}
	n := sarifNotification{Level: "error", Message: sarifText{
		Text: "pack " + name + " INCOMPLETE: every probe was inconclusive or not applicable, so nothing in it was judged"}}
	if rep.AllowInconclusive {
		n.Level = "warning"
	}
	return n
}
