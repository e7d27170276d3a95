package scan

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// scanReport is a finalized report of a core pack that passed and an fs
// pack of the given verdicts (critical probes).
func scanReport(fs ...packs.Verdict) *report.Report {
	rep := &report.Report{Packs: []report.Pack{
		{Name: "core", Probes: []report.Probe{{ID: "CORE-INIT", Verdict: packs.Passed, Severity: packs.High}}},
		{Name: "fs"},
	}}
	for i, v := range fs {
		rep.Packs[1].Probes = append(rep.Packs[1].Probes, report.Probe{ID: "FS-" + string(rune('A'+i)), Verdict: v, Severity: packs.Critical, Reason: "control failed"})
	}
	report.Finalize(rep, nil)
	return rep
}

// TestSummaryIncomplete: a server whose fs pack is all inconclusive reads
// INCOMPLETE in the table, names its untested checks and counts in the
// last line, and the scan's exit code is 3; with AllowInconclusive, or
// with the pack judged, it reads pass and exits 0.
func TestSummaryIncomplete(t *testing.T) {
	incomplete := scanReport(packs.Inconclusive, packs.NotApplicable)
	judged := scanReport(packs.Passed, packs.Inconclusive)
	reps := []Named{{Name: "notes", Report: incomplete}, {Name: "files", Report: scanReport(packs.Passed)}}
	var b bytes.Buffer
	if err := WriteSummary(&b, reps, packs.High); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"notes   -         INCOMPLETE",
		"\nnotes:\n  pack fs INCOMPLETE: every probe inconclusive or not applicable\n  FS-A critical: inconclusive: control failed\n",
		"scan: 2 servers: 1 pass, 0 warn, 0 fail, 1 incomplete, 0 error",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if got := ExitCode(reps, packs.High); got != report.ExitHarness {
		t.Errorf("exit code %d, want %d", got, report.ExitHarness)
	}

	// The judged pack's critical probe that ended inconclusive is untested too.
	if got := verdict(judged, packs.High); got != "INCOMPLETE" {
		t.Errorf("a critical inconclusive probe: verdict %s, want INCOMPLETE", got)
	}

	incomplete.AllowInconclusive = true
	judged.AllowInconclusive = true
	for _, rep := range []*report.Report{incomplete, judged} {
		if got := verdict(rep, packs.High); got != "pass" {
			t.Errorf("allowed: verdict %s, want pass", got)
		}
	}
	if got := ExitCode(reps, packs.High); got != report.ExitClean {
		t.Errorf("allowed: exit code %d, want %d", got, report.ExitClean)
	}
	b.Reset()
	if err := WriteSummary(&b, reps, packs.High); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "INCOMPLETE") || !strings.Contains(b.String(), "scan: 2 servers: 2 pass, 0 warn, 0 fail, 0 error") {
		t.Errorf("allowed summary:\n%s", b.String())
	}
}
