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
