package report

import "github.com/sealmark/sealmark/packs"

// Outcome is what a probe's verdict means for the run under the report's
// fail bar (Report.FailOn). It is the one rule every output follows: the
// text report's FAIL, WARN and ACCEPTED, JUnit's failure or passed
// testcase, SARIF's level, go test's failing or logged line, the summary's
// counts and the exit code.
type Outcome string

// Outcomes of a probe.
const (
	// OutcomeNone: the probe did not fail its rule (pass, not applicable,
	// inconclusive, error).
	OutcomeNone Outcome = ""
	// OutcomeFail: an open (not accepted) finding at or above the fail bar;
	// it fails the run (exit 1). A probe that failed without a finding
	// counts as one finding at its own severity.
	OutcomeFail Outcome = "fail"
	// OutcomeWarn: the probe failed its rule, but every open finding is
	// below the fail bar: a warning, the run still passes.
	OutcomeWarn Outcome = "warn"
	// OutcomeAccepted: every finding the probe made is accepted by the
	// baseline.
	OutcomeAccepted Outcome = "accepted"
)

// DefaultFailOn is the fail bar of a report that names none.
const DefaultFailOn = packs.High

// FailBar is the severity at or above which an open finding fails the
// run: FailOn parsed, DefaultFailOn when empty or unknown.
func (rep *Report) FailBar() packs.Severity {
	if rep.FailOn == "" {
		return DefaultFailOn
	}
	s, err := packs.ParseSeverity(rep.FailOn)
	if err != nil {
		return DefaultFailOn
	}
	return s
}

// ProbeOutcome is what pr's verdict means for the run at fail bar bar.
func ProbeOutcome(pr Probe, bar packs.Severity) Outcome {
	if pr.Verdict != packs.Failed {
		return OutcomeNone
	}
	open := false
	for _, f := range failureFindings(pr) {
		if f.Accepted != "" {
			continue
		}
		if f.Severity >= bar {
			return OutcomeFail
		}
		open = true
	}
	if open {
		return OutcomeWarn
	}
	return OutcomeAccepted
}

// FindingFails reports whether one finding fails the run at fail bar bar:
// at or above it and not accepted by the baseline.
func FindingFails(f packs.Finding, bar packs.Severity) bool {
	return f.Severity >= bar && f.Accepted == ""
}

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
