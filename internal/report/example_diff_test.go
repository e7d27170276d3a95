package report_test

import (
	"fmt"
	"os"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

func ExampleDiff() {
	run := func(echo packs.Verdict, findings ...packs.Finding) *report.Report {
		rep := &report.Report{Class: report.Standard, Packs: []report.Pack{{Name: "core", Probes: []report.Probe{
			{ID: "CORE-INIT", Name: "initialize", Verdict: packs.Passed},
			{ID: "CORE-SECRET-ECHO", Name: "secret-echo", Verdict: echo, Severity: packs.Critical, Findings: findings},
		}}}}
		report.Finalize(rep, nil)
		return rep
	}
	before := run(packs.Passed)
	after := run(packs.Failed, packs.Finding{Severity: packs.Critical, Message: "SEALMARK_CANARY echoed by tool debug_info"})

	d := report.Diff(before, after)
	_ = report.WriteDiff(os.Stdout, d)
	fmt.Println("regressed:", d.Regressed())
	// Output:
	// class: STANDARD
	// new: CORE-SECRET-ECHO critical: SEALMARK_CANARY echoed by tool debug_info
	//   fingerprint: ed691d6ca8dc77f0
	// verdict: core/secret-echo CORE-SECRET-ECHO: pass → fail
	// summary: 1 new, 0 fixed, 0 unchanged, 1 verdict changed — regressed
	// regressed: true
}
