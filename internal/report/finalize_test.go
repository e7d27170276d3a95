package report

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/packs"
)

func TestFingerprint(t *testing.T) {
	sum := sha256.Sum256([]byte("CORE-SECRET-ECHO\x00SEALMARK_CANARY echoed"))
	want := hex.EncodeToString(sum[:8])
	got := Fingerprint("CORE-SECRET-ECHO", "SEALMARK_CANARY echoed")
	if got != want {
		t.Errorf("Fingerprint = %q, want %q", got, want)
	}
	if len(got) != 16 {
		t.Errorf("len(Fingerprint) = %d, want 16", len(got))
	}
	if got != Fingerprint("CORE-SECRET-ECHO", "SEALMARK_CANARY echoed") {
		t.Error("Fingerprint is not deterministic")
	}
	if Fingerprint("ab", "c") == Fingerprint("a", "bc") {
		t.Error("Fingerprint does not separate probe id from message")
	}
	if Fingerprint("X", "m1") == Fingerprint("X", "m2") || Fingerprint("X", "m") == Fingerprint("Y", "m") {
		t.Error("Fingerprint ignores its input")
	}
}

func TestFinalizeFingerprintsTheRedactedMessage(t *testing.T) {
	fingerprint := func(top string) string {
		rep := &Report{Packs: []Pack{{Name: "fs", Probes: []Probe{{
			ID: "FS-X", Verdict: packs.Failed,
			Findings: []packs.Finding{{Message: "read " + top + "/root/secret"}},
		}}}}}
		r := redact.New()
		r.Stable(top+"/root", "{sandbox}")
		Finalize(rep, r)
		return rep.Packs[0].Probes[0].Findings[0].Fingerprint
	}
	a, b := fingerprint("/tmp/sealmark-aaa"), fingerprint("/tmp/sealmark-bbb")
	if a != b {
		t.Errorf("fingerprints differ between runs: %q vs %q", a, b)
	}
	if want := Fingerprint("FS-X", "read {sandbox}/secret"); a != want {
		t.Errorf("fingerprint = %q, want %q (of the redacted message)", a, want)
	}
}

func TestFinalizeKeepsAFingerprintAlreadySet(t *testing.T) {
	rep := &Report{Packs: []Pack{{Probes: []Probe{{ID: "X", Findings: []packs.Finding{{Message: "m", Fingerprint: "given"}}}}}}}
	Finalize(rep, nil)
	if got := rep.Packs[0].Probes[0].Findings[0].Fingerprint; got != "given" {
		t.Errorf("Fingerprint = %q, want %q", got, "given")
	}
}

func TestFinalizeSummaryAndDefaults(t *testing.T) {
	rep := &Report{Packs: []Pack{
		{Name: "a", Probes: []Probe{
			{Verdict: packs.Passed, Findings: []packs.Finding{{Severity: packs.Info}}}, // not failing: not counted
			{Verdict: packs.Failed, Findings: []packs.Finding{{Severity: packs.Critical, Message: "one"}, {Severity: packs.High, Message: "two"}}},
			{Verdict: packs.Failed, Findings: []packs.Finding{{Severity: packs.High}}},
			{Verdict: packs.NotApplicable},
			{Verdict: packs.Inconclusive, Findings: []packs.Finding{{Severity: packs.Low}}}, // not counted
			{Verdict: packs.Errored},
		}},
		{Name: "b"},
	}}
	Finalize(rep, nil)
	if rep.Schema != SchemaVersion {
		t.Errorf("Schema = %q, want %q", rep.Schema, SchemaVersion)
	}
	if rep.Packs[1].Probes == nil {
		t.Error("nil Probes not made an empty list")
	}
	wantV := map[packs.Verdict]int{packs.Passed: 1, packs.Failed: 2, packs.NotApplicable: 1, packs.Inconclusive: 1, packs.Errored: 1}
	for v, n := range wantV {
		if got := rep.Summary.Verdicts[v]; got != n {
			t.Errorf("Verdicts[%s] = %d, want %d", v, got, n)
		}
	}
	if len(rep.Summary.Verdicts) != 5 {
		t.Errorf("Verdicts has %d entries, want 5: %v", len(rep.Summary.Verdicts), rep.Summary.Verdicts)
	}
	wantF := map[string]int{"critical": 1, "high": 2, "medium": 0, "low": 0, "info": 0}
	for s, n := range wantF {
		got, ok := rep.Summary.Findings[s]
		if !ok || got != n {
			t.Errorf("Findings[%s] = %d (present %v), want %d", s, got, ok, n)
		}
	}

	empty := &Report{}
	Finalize(empty, nil)
	if empty.Packs == nil || empty.Summary.Verdicts == nil || empty.Summary.Findings == nil {
		t.Errorf("Finalize of an empty report left nil lists: %+v", empty)
	}
}

func TestFinalizeKeepsRealPathsOfWhatIsLeftBehind(t *testing.T) {
	const top = "/tmp/sealmark-left"
	r := redact.New()
	r.Stable(top+"/root", "{sandbox}")
	r.Secret("hunter22", redact.MaskPassword)
	rep := &Report{
		Sandbox:  Sandbox{Path: top + "/root", Kept: true, CleanupError: top + "/root/hunter22: permission denied"},
		Warnings: []string{"wrote " + top + "/root/x"},
	}
	Finalize(rep, r)
	if got, want := rep.Sandbox.Path, top+"/root"; got != want {
		t.Errorf("kept Sandbox.Path = %q, want %q", got, want)
	}
	if got, want := rep.Sandbox.CleanupError, top+"/root/<password>: permission denied"; got != want {
		t.Errorf("CleanupError = %q, want %q", got, want)
	}
	if got, want := rep.Warnings[0], "wrote {sandbox}/x"; got != want {
		t.Errorf("Warnings[0] = %q, want %q", got, want)
	}

	notKept := &Report{Sandbox: Sandbox{Path: top + "/root"}}
	Finalize(notKept, r)
	if got, want := notKept.Sandbox.Path, "{sandbox}"; got != want {
		t.Errorf("Sandbox.Path of a deleted sandbox = %q, want %q", got, want)
	}
}
