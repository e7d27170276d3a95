package report

import (
	"testing"

	"github.com/sealmark/sealmark/packs"
)

func TestExitCode(t *testing.T) {
	probe := func(v packs.Verdict, sev packs.Severity, findings ...packs.Severity) Probe {
		p := Probe{ID: "P", Verdict: v, Severity: sev}
		for _, s := range findings {
			p.Findings = append(p.Findings, packs.Finding{Severity: s})
		}
		return p
	}
	report := func(probes ...Probe) *Report { return &Report{Packs: []Pack{{Name: "p", Probes: probes}}} }
	allow := func(rep *Report) *Report { rep.AllowInconclusive = true; return rep }

	tests := []struct {
		name   string
		rep    *Report
		failOn packs.Severity
		want   int
	}{
		{"nil report", nil, packs.High, ExitHarness},
		{"harness error wins", &Report{HarnessError: "server did not start", Packs: report(probe(packs.Failed, packs.Critical, packs.Critical)).Packs}, packs.High, ExitHarness},
		{"harness error alone", &Report{HarnessError: "no sandbox"}, packs.High, ExitHarness},
		{"empty: nothing was tested", &Report{}, packs.Info, ExitHarness},
		{"every pack not applicable", &Report{Packs: []Pack{{Name: "fs"}}, NotCovered: []NotCovered{{Pack: "fs", Reason: "not applicable: no tool takes a path"}}}, packs.Info, ExitHarness},
		{"only not-applicable probes", report(probe(packs.NotApplicable, packs.High)), packs.Info, ExitHarness},
		{"all pass", report(probe(packs.Passed, packs.Critical)), packs.Info, ExitClean},
		{"critical at high", report(probe(packs.Failed, packs.Critical, packs.Critical)), packs.High, ExitFindings},
		{"high at high", report(probe(packs.Failed, packs.High, packs.High)), packs.High, ExitFindings},
		{"medium at high", report(probe(packs.Failed, packs.Medium, packs.Medium)), packs.High, ExitClean},
		{"medium at medium", report(probe(packs.Failed, packs.Medium, packs.Medium)), packs.Medium, ExitFindings},
		{"finding severity, not probe severity", report(probe(packs.Failed, packs.Critical, packs.Low)), packs.High, ExitClean},
		{"one of several findings", report(probe(packs.Failed, packs.Low, packs.Low, packs.Critical)), packs.Critical, ExitFindings},
		{"info finding on a passing probe", report(probe(packs.Passed, packs.Info, packs.Critical)), packs.Info, ExitClean},
		{"finding on an inconclusive probe below the bar", report(probe(packs.Inconclusive, packs.Low, packs.High), probe(packs.Passed, packs.High)), packs.High, ExitClean},
		{"inconclusive critical probe: untested", report(probe(packs.Inconclusive, packs.Critical), probe(packs.Passed, packs.High)), packs.High, ExitHarness},
		{"inconclusive critical probe, allowed", allow(report(probe(packs.Inconclusive, packs.Critical), probe(packs.Passed, packs.High))), packs.High, ExitClean},
		{"inconclusive high probe at high", report(probe(packs.Inconclusive, packs.High), probe(packs.Passed, packs.High)), packs.High, ExitHarness},
		{"inconclusive medium probe at high", report(probe(packs.Inconclusive, packs.Medium), probe(packs.Passed, packs.High)), packs.High, ExitClean},
		{"a finding outranks an untested check", report(probe(packs.Inconclusive, packs.Critical), probe(packs.Failed, packs.High, packs.High)), packs.High, ExitFindings},
		{"incomplete pack below the bar", &Report{Packs: []Pack{
			{Name: "core", Probes: []Probe{probe(packs.Passed, packs.High)}},
			{Name: "fs", Probes: []Probe{probe(packs.Inconclusive, packs.Low), probe(packs.NotApplicable, packs.Critical)}}}}, packs.High, ExitHarness},
		{"incomplete pack below the bar, allowed", allow(&Report{Packs: []Pack{
			{Name: "core", Probes: []Probe{probe(packs.Passed, packs.High)}},
			{Name: "fs", Probes: []Probe{probe(packs.Inconclusive, packs.Low), probe(packs.NotApplicable, packs.Critical)}}}}), packs.High, ExitClean},
		{"complete pack with a low inconclusive probe", &Report{Packs: []Pack{
			{Name: "fs", Probes: []Probe{probe(packs.Inconclusive, packs.Low), probe(packs.Passed, packs.Critical)}}}}, packs.High, ExitClean},
		{"only inconclusive: nothing was tested", report(probe(packs.Inconclusive, packs.High, packs.High)), packs.Low, ExitHarness},
		{"fail without findings uses the probe severity", report(probe(packs.Failed, packs.High)), packs.High, ExitFindings},
		{"fail without findings below the bar", report(probe(packs.Failed, packs.Low)), packs.High, ExitClean},
		{"error verdict", report(probe(packs.Errored, packs.Critical), probe(packs.Passed, packs.High)), packs.Info, ExitClean},
		{"error verdict alone: nothing was tested", report(probe(packs.Errored, packs.Critical)), packs.Info, ExitHarness},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.rep, tt.failOn); got != tt.want {
			t.Errorf("%s: ExitCode(failOn %s) = %d, want %d", tt.name, tt.failOn, got, tt.want)
		}
	}
}

func TestPackIncomplete(t *testing.T) {
	pk := func(vs ...packs.Verdict) Pack {
		p := Pack{Name: "fs"}
		for _, v := range vs {
			p.Probes = append(p.Probes, Probe{Verdict: v})
		}
		return p
	}
	for _, tt := range []struct {
		name string
		pack Pack
		want bool
	}{
		{"every probe inconclusive", pk(packs.Inconclusive, packs.Inconclusive), true},
		{"inconclusive and not applicable", pk(packs.NotApplicable, packs.Inconclusive), true},
		{"every probe not applicable", pk(packs.NotApplicable, packs.NotApplicable), false},
		{"one passed", pk(packs.Inconclusive, packs.Passed), false},
		{"one failed", pk(packs.Inconclusive, packs.Failed), false},
		{"one errored", pk(packs.Inconclusive, packs.Errored), false},
		{"no probes", pk(), false},
	} {
		if got := PackIncomplete(tt.pack); got != tt.want {
			t.Errorf("%s: PackIncomplete = %v, want %v", tt.name, got, tt.want)
		}
	}
}
