package main

import "flag"

// allowInconclusiveFlag is --allow-inconclusive, a layered boolean setting
// (allow_inconclusive, SEALMARK_ALLOW_INCONCLUSIVE) that run and scan both
// take. Without it a probe at or above the fail bar that ended
// inconclusive, or a pack whose every probe was inconclusive or not
// applicable (INCOMPLETE), makes the exit code 3 (report.ExitCode).
const allowInconclusiveFlag = "allow-inconclusive"

// addAllowInconclusive defines --allow-inconclusive on fs. It is a bool
// flag, so it is not in sharedLayered (whose flags take a value); addShared
// and sharedNames add it.
func addAllowInconclusive(fs *flag.FlagSet) {
	fs.Bool(allowInconclusiveFlag, false, "let an inconclusive probe at or above --fail-on, or an INCOMPLETE pack, pass (default: exit 3)")
}
