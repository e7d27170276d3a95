package report

import (
	"testing"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// TestFoldRepeats: a probe's findings with one fingerprint (the same
// program run by twelve calls, as desktop-commander's `cat /proc/1/environ`
// was reported twelve times) are one finding with the highest severity,
// the others' evidence (bounded) and a count; different fingerprints, and
// an accepted finding beside an open one, stay apart.
func TestFoldRepeats(t *testing.T) {
	var fs []packs.Finding
	for i := range 12 {
		sev := packs.High
		if i == 5 {
			sev = packs.Critical
		}
		fs = append(fs, packs.Finding{Severity: sev, Message: "ran cat", Fingerprint: "aaaa",
			Evidence: []packs.Evidence{{Observer: "process", Detail: "call " + string(rune('a'+i))}}})
	}
	fs = append(fs,
		packs.Finding{Severity: packs.High, Message: "ran ls", Fingerprint: "bbbb"},
		packs.Finding{Severity: packs.High, Message: "ran cat", Fingerprint: "aaaa", Accepted: "known"})
	rep := &Report{Packs: []Pack{{Name: "effects", Probes: []Probe{{ID: "EFFECTS-SPAWNS", Verdict: packs.Failed, Findings: fs}}}}}
	Finalize(rep, nil)
	got := rep.Packs[0].Probes[0].Findings
	if len(got) != 3 {
		t.Fatalf("%d findings after folding, want 3 (cat, ls, accepted cat): %+v", len(got), got)
	}
	cat := got[0]
	if cat.Fingerprint != "aaaa" || cat.Accepted != "" || cat.Severity != packs.Critical {
		t.Errorf("folded finding = %+v, want the open cat at critical", cat)
	}
	if len(cat.Evidence) != maxFoldedEvidence+1 {
		t.Errorf("folded evidence has %d items, want %d and the count", len(cat.Evidence), maxFoldedEvidence)
	}
	if last := cat.Evidence[len(cat.Evidence)-1]; last.Detail != "seen 12 times in this probe (one finding: the same rule and the same thing wrong)" {
		t.Errorf("count evidence = %q", last.Detail)
	}
	if got[1].Fingerprint != "bbbb" || got[2].Accepted != "known" {
		t.Errorf("the other findings = %+v, %+v", got[1], got[2])
	}
	if n := rep.Summary.Findings["critical"] + rep.Summary.Findings["high"]; n != 2 {
		t.Errorf("summary counts %d open critical and high findings, want 2", n)
	}
}

// TestObservationsCapped: a probe lists at most MaxProbeObservations
// observations and counts the rest.
func TestObservationsCapped(t *testing.T) {
	obs := make([]observers.Record, MaxProbeObservations+7)
	rep := &Report{Packs: []Pack{{Name: "effects", Probes: []Probe{{ID: "EFFECTS-SPAWNS", Verdict: packs.Passed, Observations: obs}}}}}
	Finalize(rep, nil)
	pr := rep.Packs[0].Probes[0]
	if len(pr.Observations) != MaxProbeObservations || pr.ObservationsLeftOut != 7 {
		t.Errorf("%d observations listed, %d left out; want %d and 7", len(pr.Observations), pr.ObservationsLeftOut, MaxProbeObservations)
	}
}
