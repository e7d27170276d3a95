package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/packs"
)

// diffSummary is what one Diff found, in a form a table can state.
type diffSummary struct {
	newFs, fixed []string // probe ID and message of each finding
	unchanged    int
	verdicts     []string // "ID old→new"
	onlyOld      []string // "pack" for a pack, "pack/ID" for a probe
	onlyNew      []string
	regressed    bool
}

func summarizeDiff(d DiffResult) diffSummary {
	s := diffSummary{unchanged: d.Unchanged, regressed: d.Regressed()}
	for _, f := range d.NewFindings {
		s.newFs = append(s.newFs, f.ProbeID+" "+f.Message)
	}
	for _, f := range d.FixedFindings {
		s.fixed = append(s.fixed, f.ProbeID+" "+f.Message)
	}
	for _, c := range d.VerdictChanges {
		s.verdicts = append(s.verdicts, c.ProbeID+" "+string(c.Old)+"→"+string(c.New))
	}
	only := func(pks []DiffPack, prs []DiffProbe) []string {
		var out []string
		for _, p := range pks {
			out = append(out, p.Name)
		}
		for _, p := range prs {
			out = append(out, p.Pack+"/"+p.ProbeID)
		}
		return out
	}
	s.onlyOld = only(d.PacksOnlyInOld, d.ProbesOnlyInOld)
	s.onlyNew = only(d.PacksOnlyInNew, d.ProbesOnlyInNew)
	return s
}

func TestDiff(t *testing.T) {
	finding := func(msg string) packs.Finding { return packs.Finding{Severity: packs.High, Message: msg} }
	probe := func(id string, v packs.Verdict, msgs ...string) Probe {
		p := Probe{ID: id, Name: strings.ToLower(id), Verdict: v, Severity: packs.High}
		for _, m := range msgs {
			p.Findings = append(p.Findings, finding(m))
		}
		return p
	}
	rep := func(probes ...Probe) *Report {
		return &Report{Class: Standard, Packs: []Pack{{Name: "core", Probes: probes}}}
	}

	tests := []struct {
		name     string
		old, new *Report
		want     diffSummary
	}{
		{
			name: "identical",
			old:  rep(probe("A", packs.Passed), probe("B", packs.Failed, "b1", "b2")),
			new:  rep(probe("A", packs.Passed), probe("B", packs.Failed, "b1", "b2")),
			want: diffSummary{unchanged: 2},
		},
		{
			name: "new finding in a failing probe",
			old:  rep(probe("B", packs.Failed, "b1")),
			new:  rep(probe("B", packs.Failed, "b1", "b2")),
			want: diffSummary{newFs: []string{"B b2"}, unchanged: 1, regressed: true},
		},
		{
			name: "fixed: the probe passes now",
			old:  rep(probe("B", packs.Failed, "b1")),
			new:  rep(probe("B", packs.Passed)),
			want: diffSummary{fixed: []string{"B b1"}, verdicts: []string{"B fail→pass"}},
		},
		{
			name: "pass to fail without a finding",
			old:  rep(probe("A", packs.Passed)),
			new:  rep(probe("A", packs.Failed)),
			want: diffSummary{verdicts: []string{"A pass→fail"}, regressed: true},
		},
		{
			name: "inconclusive to fail",
			old:  rep(probe("A", packs.Inconclusive)),
			new:  rep(probe("A", packs.Failed)),
			want: diffSummary{verdicts: []string{"A inconclusive→fail"}, regressed: true},
		},
		{
			name: "pass to not-applicable is no regression",
			old:  rep(probe("A", packs.Passed)),
			new:  rep(probe("A", packs.NotApplicable)),
			want: diffSummary{verdicts: []string{"A pass→not-applicable"}},
		},
		{
			name: "a finding found once more",
			old:  rep(probe("B", packs.Failed, "b1")),
			new:  rep(probe("B", packs.Failed, "b1", "b1")),
			want: diffSummary{newFs: []string{"B b1"}, unchanged: 1, regressed: true},
		},
		{
			name: "findings of a probe that did not fail do not count",
			old:  rep(probe("A", packs.Passed)),
			new:  rep(probe("A", packs.Passed, "info note"), probe("I", packs.Inconclusive, "maybe")),
			want: diffSummary{onlyNew: []string{"core/I"}},
		},
		{
			name: "the same message under another probe is another finding",
			old:  rep(probe("A", packs.Failed, "m")),
			new:  rep(probe("B", packs.Failed, "m")),
			want: diffSummary{newFs: []string{"B m"}, fixed: []string{"A m"}, onlyOld: []string{"core/A"}, onlyNew: []string{"core/B"}, regressed: true},
		},
		{
			name: "a new probe failing without a finding",
			old:  rep(probe("A", packs.Passed)),
			new:  rep(probe("A", packs.Passed), probe("N", packs.Failed)),
			want: diffSummary{onlyNew: []string{"core/N"}, regressed: true},
		},
		{
			name: "packs in one report only",
			old:  &Report{Packs: []Pack{{Name: "core", Probes: []Probe{probe("A", packs.Passed)}}, {Name: "fs", Probes: []Probe{probe("F", packs.Passed)}}}},
			new:  &Report{Packs: []Pack{{Name: "core", Probes: []Probe{probe("A", packs.Passed)}}, {Name: "db", Probes: []Probe{probe("D", packs.Passed)}}}},
			want: diffSummary{onlyOld: []string{"fs", "fs/F"}, onlyNew: []string{"db", "db/D"}},
		},
		{
			name: "a harness error in the new run",
			old:  rep(probe("A", packs.Passed)),
			new:  &Report{Class: Standard, HarnessError: "server did not start"},
			want: diffSummary{onlyOld: []string{"core", "core/A"}, regressed: true},
		},
		{
			name: "nil reports",
			old:  nil,
			new:  nil,
			want: diffSummary{},
		},
		{
			name: "from nothing",
			old:  nil,
			new:  rep(probe("B", packs.Failed, "b1")),
			want: diffSummary{newFs: []string{"B b1"}, onlyNew: []string{"core", "core/B"}, regressed: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summarizeDiff(Diff(tt.old, tt.new))
			eq := slices.Equal[[]string]
			if !eq(got.newFs, tt.want.newFs) || !eq(got.fixed, tt.want.fixed) || got.unchanged != tt.want.unchanged ||
				!eq(got.verdicts, tt.want.verdicts) || !eq(got.onlyOld, tt.want.onlyOld) || !eq(got.onlyNew, tt.want.onlyNew) ||
				got.regressed != tt.want.regressed {
				t.Errorf("Diff =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

func TestDiffMatchesByFingerprint(t *testing.T) {
	f := func(msg, fp string) *Report {
		return &Report{Packs: []Pack{{Name: "core", Probes: []Probe{{ID: "A", Verdict: packs.Failed,
			Findings: []packs.Finding{{Message: msg, Fingerprint: fp}}}}}}}
	}
	// A stored fingerprint wins over the message.
	if d := Diff(f("old words", "fp1"), f("new words", "fp1")); d.Unchanged != 1 || len(d.NewFindings) != 0 {
		t.Errorf("same fingerprint, other message: %+v, want unchanged", d)
	}
	if d := Diff(f("same", "fp1"), f("same", "fp2")); len(d.NewFindings) != 1 || len(d.FixedFindings) != 1 {
		t.Errorf("other fingerprint, same message: %+v, want one new and one fixed", d)
	}
	// Without fingerprints (reports Finalize did not see), the message's.
	d := Diff(f("m", ""), f("m", Fingerprint("A", "m")))
	if d.Unchanged != 1 {
		t.Errorf("missing fingerprint not computed: %+v", d)
	}
	if d := Diff(nil, f("m", "")); len(d.NewFindings) != 1 || d.NewFindings[0].Fingerprint != Fingerprint("A", "m") {
		t.Errorf("new finding without a fingerprint: %+v, want Fingerprint(A, m)", d.NewFindings)
	}
}

func TestDiffClassAndReasons(t *testing.T) {
	old := sampleReport()
	Finalize(old, sampleRedactor())
	nu := sampleReport()
	nu.Class, nu.ClassReasons = Custom, []string{"--no-sandbox"}
	nu.Packs = append(nu.Packs, Pack{Name: "fs", Probes: []Probe{{ID: "FS-1", Name: "one", Verdict: packs.Passed}}})
	nu.Packs[0].Probes = nu.Packs[0].Probes[:2] // tool-sweep and stdout-hygiene did not run
	nu.NotCovered = []NotCovered{{Pack: "core", Probe: "tool-sweep", Reason: "disabled in sealmark.yaml"}}
	Finalize(nu, sampleRedactor())

	d := Diff(old, nu)
	if !d.ClassChanged() || d.OldClass != Standard || d.NewClass != Custom {
		t.Errorf("class %s → %s, ClassChanged %v, want STANDARD → CUSTOM", d.OldClass, d.NewClass, d.ClassChanged())
	}
	if d.Regressed() {
		t.Error("Regressed with no new finding and no new failure")
	}
	if len(d.ProbesOnlyInOld) != 2 || d.ProbesOnlyInOld[0].Reason != "disabled in sealmark.yaml" || d.ProbesOnlyInOld[1].Reason != "" {
		t.Errorf("probes only in old %+v, want tool-sweep with the new run's reason, then stdout-hygiene", d.ProbesOnlyInOld)
	}
	// The old report says why fs did not run there.
	if len(d.PacksOnlyInNew) != 1 || d.PacksOnlyInNew[0] != (DiffPack{Name: "fs", Reason: "not applicable: no path-taking tool"}) {
		t.Errorf("packs only in new %+v, want fs with the old run's reason", d.PacksOnlyInNew)
	}
	if d.Unchanged != 1 {
		t.Errorf("Unchanged = %d, want 1", d.Unchanged)
	}
}

func TestWriteDiff(t *testing.T) {
	old := sampleReport()
	old.Packs[0].Probes[2] = Probe{ID: "CORE-TOOL-SWEEP", Name: "tool-sweep", Verdict: packs.Failed, Severity: packs.High,
		Findings: []packs.Finding{{Severity: packs.High, Message: "tool delete_note ran during the sweep"}}}
	old.Packs = append(old.Packs, Pack{Name: "fs", Probes: []Probe{{ID: "FS-1", Name: "one", Verdict: packs.Passed}}})
	Finalize(old, sampleRedactor())

	nu := sampleReport()
	nu.Packs[0].Probes[0].Verdict = packs.Failed // CORE-INIT: pass → fail, without a finding
	nu.Packs[0].Probes[1].Findings = append(nu.Packs[0].Probes[1].Findings, packs.Finding{
		Severity: packs.Medium, Confidence: packs.ConfidenceLow, Message: "debug_info\x1b[2J names HOME",
		Evidence: []packs.Evidence{{Observer: "response", Detail: "line one\nline two"}},
	})
	nu.Packs[0].Probes = append(nu.Packs[0].Probes, Probe{ID: "CORE-NEW", Name: "new-probe", Verdict: packs.Passed})
	nu.NotCovered = []NotCovered{{Pack: "fs", Reason: "not applicable: no path-taking tool"}}
	Finalize(nu, sampleRedactor())

	var buf bytes.Buffer
	if err := WriteDiff(&buf, Diff(old, nu)); err != nil {
		t.Fatal(err)
	}
	want := "class: STANDARD\n" +
		"new: CORE-SECRET-ECHO medium (low confidence): debug_info\\x1b[2J names HOME\n" +
		"  evidence: response: line one\n" +
		"    line two\n" +
		"  fingerprint: " + Fingerprint("CORE-SECRET-ECHO", "debug_info\x1b[2J names HOME") + "\n" +
		"fixed: CORE-TOOL-SWEEP high: tool delete_note ran during the sweep\n" +
		"  fingerprint: " + Fingerprint("CORE-TOOL-SWEEP", "tool delete_note ran during the sweep") + "\n" +
		"verdict: core/initialize CORE-INIT: pass → fail\n" +
		"verdict: core/tool-sweep CORE-TOOL-SWEEP: fail → not-applicable\n" +
		"only in old: pack fs (1 probe); new run: not applicable: no path-taking tool\n" +
		"only in new: core/new-probe CORE-NEW (pass)\n" +
		"summary: 1 new, 1 fixed, 1 unchanged, 2 verdicts changed — regressed\n"
	if got := buf.String(); got != want {
		t.Errorf("WriteDiff =\n%s\nwant\n%s", got, want)
	}
}

func TestWriteDiffHarnessErrorsAndClass(t *testing.T) {
	d := Diff(&Report{Class: Standard, HarnessError: "no sandbox"}, &Report{Class: Custom, HarnessError: "server exited\nwith status 1"})
	var buf bytes.Buffer
	if err := WriteDiff(&buf, d); err != nil {
		t.Fatal(err)
	}
	want := "class: STANDARD → CUSTOM (results compare only within a class)\n" +
		"error: old run: no sandbox\n" +
		"error: new run: server exited\n" +
		"  with status 1\n" +
		"summary: 0 new, 0 fixed, 0 unchanged, 0 verdicts changed — regressed\n"
	if got := buf.String(); got != want {
		t.Errorf("WriteDiff =\n%s\nwant\n%s", got, want)
	}

	buf.Reset()
	if err := WriteDiff(&buf, Diff(nil, nil)); err != nil {
		t.Fatal(err)
	}
	if want := "class: none\nsummary: 0 new, 0 fixed, 0 unchanged, 0 verdicts changed — no regression\n"; buf.String() != want {
		t.Errorf("WriteDiff of two empty reports = %q, want %q", buf.String(), want)
	}
}

func TestDiffRegressedAt(t *testing.T) {
	fail := func(id string, sev packs.Severity, fs ...packs.Finding) Probe {
		return Probe{ID: id, Name: strings.ToLower(id), Verdict: packs.Failed, Severity: sev, Findings: fs}
	}
	pass := func(id string) Probe {
		return Probe{ID: id, Name: strings.ToLower(id), Verdict: packs.Passed, Severity: packs.High}
	}
	medium := packs.Finding{Severity: packs.Medium, Message: "medium one"}
	critical := packs.Finding{Severity: packs.Critical, Message: "critical one"}
	accepted := critical
	accepted.Accepted = "known, fixed in v3"
	rep := func(probes ...Probe) *Report {
		return &Report{Class: Standard, Packs: []Pack{{Name: "core", Probes: probes}}}
	}
	base := rep(pass("A"), pass("B"))
	for _, tc := range []struct {
		name      string
		new       *Report
		at        packs.Severity
		want      bool
		regressed bool // Regressed, for contrast
	}{
		{"nothing new", rep(pass("A"), pass("B")), packs.Low, false, false},
		{"new medium finding, bar high", rep(fail("A", packs.High, medium), pass("B")), packs.High, false, true},
		{"new medium finding, bar medium", rep(fail("A", packs.High, medium), pass("B")), packs.Medium, true, true},
		{"new critical finding, bar high", rep(fail("A", packs.Medium, critical), pass("B")), packs.High, true, true},
		{"new accepted critical finding", rep(fail("A", packs.High, accepted), pass("B")), packs.Low, false, true},
		{"failing without findings, own severity high", rep(fail("A", packs.High), pass("B")), packs.High, true, true},
		{"failing without findings, own severity low", rep(fail("A", packs.Low), pass("B")), packs.High, false, true},
		{"new probe failing, bar critical", rep(pass("A"), pass("B"), fail("C", packs.High, critical)), packs.Critical, true, true},
		{"new probe failing low", rep(pass("A"), pass("B"), fail("C", packs.Low)), packs.Medium, false, true},
		{"harness error", &Report{Class: Standard, HarnessError: "did not start"}, packs.Critical, true, true},
	} {
		d := Diff(base, tc.new)
		if got := d.RegressedAt(tc.at); got != tc.want {
			t.Errorf("%s: RegressedAt(%s) = %v, want %v", tc.name, tc.at, got, tc.want)
		}
		if got := d.Regressed(); got != tc.regressed {
			t.Errorf("%s: Regressed = %v, want %v", tc.name, got, tc.regressed)
		}
	}
}

// TestDiffPackPerStart: a pack run once per start (server-postgres's db
// pack as reader and writer) holds the same probe ids twice; a report
// diffed against itself changes no verdict (it flagged the writer's
// verdicts as changed from the reader's).
func TestDiffPackPerStart(t *testing.T) {
	rep := &Report{Packs: []Pack{
		{Name: "db", Start: "reader", Probes: []Probe{{ID: "DB-READONLY-ESCAPE", Verdict: packs.Failed,
			Findings: []packs.Finding{{Message: "m", Fingerprint: "fp"}}}}},
		{Name: "db", Start: "writer", Probes: []Probe{{ID: "DB-READONLY-ESCAPE", Verdict: packs.NotApplicable}}},
	}}
	d := Diff(rep, rep)
	if len(d.VerdictChanges) != 0 || len(d.NewFindings) != 0 || len(d.FixedFindings) != 0 {
		t.Errorf("a report against itself: %+v, want no change", d)
	}
}
