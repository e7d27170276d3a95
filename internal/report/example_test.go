package report_test

import (
	"fmt"
	"os"

	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

func ExampleWriteText() {
	r := redact.New()
	r.Secret("sm-canary-0123456789abcdef", redact.MaskCanary)
	r.Stable("/tmp/sealmark-5150/root", "{sandbox}")

	rep := &report.Report{
		Tool:   report.Tool{Name: "sealmark", Version: "dev"},
		Class:  report.Standard,
		Server: report.Server{Command: "node", Args: []string{"index.js", "/tmp/sealmark-5150/root"}},
		Packs: []report.Pack{{Name: "core", Probes: []report.Probe{
			{ID: "CORE-INIT", Name: "initialize", Verdict: packs.Passed},
			{ID: "CORE-SECRET-ECHO", Name: "secret-echo", Verdict: packs.Failed, Findings: []packs.Finding{{
				Severity: packs.Critical,
				Message:  "SEALMARK_CANARY echoed by tool debug_info",
				Evidence: []packs.Evidence{{Observer: "response", Detail: "result holds sm-canary-0123456789abcdef"}},
			}}},
		}}},
	}
	report.Finalize(rep, r)
	_ = report.WriteText(os.Stdout, rep)
	// Output:
	// sealmark dev — STANDARD
	// server:  node index.js {sandbox}
	//
	//   FAIL  core/secret-echo  CORE-SECRET-ECHO critical: SEALMARK_CANARY echoed by tool debug_info
	//           evidence: response: result holds <canary>
	// summary: 1 pass, 1 fail (1 critical), 0 not applicable, 0 inconclusive, 0 error
}

func ExampleExitCode() {
	rep := &report.Report{HarnessError: "server exited during initialize"}
	fmt.Println(report.ExitCode(rep, packs.High) == report.ExitHarness, report.ExitCode(rep, packs.High))
	// Output: true 3
}
