package report

import "github.com/sealmark/sealmark/packs"

// Exit codes of a run, the same for sealmark run and the CLI's other
// commands.
const (
	ExitClean    = 0 // no finding at or above the fail-on severity
	ExitFindings = 1 // at least one finding at or above it
	ExitUsage    = 2 // a usage or configuration error (set by the CLI, never by ExitCode)
	ExitHarness  = 3 // the harness could not run
)

// ExitCode is the exit code rep calls for: ExitHarness when HarnessError is
// set (a nil rep counts as one) or when nothing was tested (no probe passed
// or failed: every selected pack was not applicable); ExitFindings when a failing probe has a
// finding of severity failOn or higher, or has no finding at all and its own
// severity is failOn or higher; ExitClean otherwise. Findings of probes that
// did not fail (an info note on a passing probe) never count.
func ExitCode(rep *Report, failOn packs.Severity) int {
	if rep == nil || rep.HarnessError != "" {
		return ExitHarness
	}
	if len(rep.StaleBaseline) > 0 {
		return ExitFindings
	}
	tested := false
	for _, pk := range rep.Packs {
		for _, pr := range pk.Probes {
			tested = tested || pr.Verdict == packs.Passed || pr.Verdict == packs.Failed
			if pr.Verdict != packs.Failed {
				continue
			}
			if len(pr.Findings) == 0 && pr.Severity >= failOn {
				return ExitFindings
			}
			for _, f := range pr.Findings {
				if f.Severity >= failOn && f.Accepted == "" {
					return ExitFindings
				}
			}
		}
	}
	if !tested {
		return ExitHarness // nothing was tested: no pass
	}
	return ExitClean
}
