package report

import "github.com/sealmark/sealmark/packs"

// Exit codes of a run, the same for sealmark run and the CLI's other
// commands.
const (
	ExitClean    = 0 // no finding at or above the fail-on severity
	ExitFindings = 1 // at least one finding at or above it
	ExitUsage    = 2 // a usage or configuration error (set by the CLI, never by ExitCode)
	ExitHarness  = 3 // the harness could not run, or a check it had to make went untested
)

// ExitCode is the exit code rep calls for: ExitHarness when HarnessError is
// set (a nil rep counts as one) or when nothing was tested (no probe passed
// or failed: every selected pack was not applicable); ExitFindings when a
// stale baseline entry is left or a probe's outcome at failOn is
// OutcomeFail (an open finding at or above failOn, or no finding at all
// and its own severity at or above it); else ExitHarness when a check went
// untested (Report.Untested: an inconclusive probe at or above failOn, or
// any inconclusive probe of an INCOMPLETE pack) and the report does not
// allow it (Report.AllowInconclusive); ExitClean otherwise. A finding
// outranks an untested check: exit 1 says more than exit 3. Warnings
// (findings below failOn), accepted findings and findings of probes that
// did not fail (an info note on a passing probe) never count. failOn is
// normally rep.FailBar(), the bar every writer shows.
func ExitCode(rep *Report, failOn packs.Severity) int {
	if rep == nil || rep.HarnessError != "" {
		return ExitHarness
	}
	if len(rep.StaleBaseline) > 0 {
		return ExitFindings
	}
	tested, untested := false, false
	for _, pk := range rep.Packs {
		for _, pr := range pk.Probes {
			tested = tested || pr.Verdict == packs.Passed || pr.Verdict == packs.Failed
			untested = untested || rep.Untested(pk, pr, failOn)
			if ProbeOutcome(pr, failOn) == OutcomeFail {
				return ExitFindings
			}
		}
	}
	if !tested || untested {
		return ExitHarness // nothing was tested, or a check it had to make: no pass
	}
	return ExitClean
}
