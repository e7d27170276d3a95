package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sealmark/sealmark/packs"
)

// junitDoc is a JUnit document read back.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Tests      int    `xml:"tests,attr"`
		Failures   int    `xml:"failures,attr"`
		Errors     int    `xml:"errors,attr"`
		Skipped    int    `xml:"skipped,attr"`
		Time       string `xml:"time,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []junitCaseDoc `xml:"testcase"`
	} `xml:"testsuite"`
}

type junitCaseDoc struct {
	Classname string `xml:"classname,attr"`
	Name      string `xml:"name,attr"`
	Time      string `xml:"time,attr"`
	Failure   *struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	} `xml:"failure"`
	Error *struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	} `xml:"error"`
	Skipped *struct {
		Message string `xml:"message,attr"`
	} `xml:"skipped"`
	SystemOut string `xml:"system-out"`
}

// readJUnit writes rep as JUnit and parses it back strictly, checking that
// every count attribute matches the testcases under it.
func readJUnit(t *testing.T, rep *Report) (junitDoc, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, rep); err != nil {
		t.Fatalf("WriteJUnit: %v", err)
	}
	var doc junitDoc
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("JUnit does not parse: %v\n%s", err, buf.Bytes())
	}
	var tests, failures, errors, skipped int
	for _, s := range doc.Suites {
		var f, e, sk int
		for _, c := range s.Cases {
			n := 0
			if c.Failure != nil {
				f, n = f+1, n+1
			}
			if c.Error != nil {
				e, n = e+1, n+1
			}
			if c.Skipped != nil {
				sk, n = sk+1, n+1
			}
			if n > 1 {
				t.Errorf("suite %s case %s: %d outcomes, want at most one", s.Name, c.Name, n)
			}
		}
		if s.Tests != len(s.Cases) || s.Failures != f || s.Errors != e || s.Skipped != sk {
			t.Errorf("suite %s counts tests=%d failures=%d errors=%d skipped=%d, want %d %d %d %d",
				s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Cases), f, e, sk)
		}
		tests, failures, errors, skipped = tests+s.Tests, failures+s.Failures, errors+s.Errors, skipped+s.Skipped
	}
	if doc.Tests != tests || doc.Failures != failures || doc.Errors != errors || doc.Skipped != skipped {
		t.Errorf("root counts tests=%d failures=%d errors=%d skipped=%d, want the suites' sums %d %d %d %d",
			doc.Tests, doc.Failures, doc.Errors, doc.Skipped, tests, failures, errors, skipped)
	}
	return doc, buf.Bytes()
}

func TestWriteJUnitGolden(t *testing.T) {
	tests := []struct {
		name string
		rep  *Report
	}{
		{"standard.junit.xml.golden", sampleReport()},
		{"custom.junit.xml.golden", customReport()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Finalize(tt.rep, sampleRedactor())
			var buf bytes.Buffer
			if err := WriteJUnit(&buf, tt.rep); err != nil {
				t.Fatal(err)
			}
			assertGolden(t, buf.Bytes(), tt.name)
		})
	}
}

func TestWriteJUnitCounts(t *testing.T) {
	rep := customReport()
	Finalize(rep, sampleRedactor())
	doc, _ := readJUnit(t, rep)
	// core: fail, inconclusive, error; mine: a low failure below the
	// default fail bar (high), a passed testcase; empty; the harness suite.
	if doc.Tests != 5 || doc.Failures != 1 || doc.Errors != 2 || doc.Skipped != 1 {
		t.Errorf("root tests=%d failures=%d errors=%d skipped=%d, want 5 1 2 1", doc.Tests, doc.Failures, doc.Errors, doc.Skipped)
	}
	var names []string
	for _, s := range doc.Suites {
		names = append(names, s.Name)
	}
	if got, want := strings.Join(names, ","), "sealmark/core,sealmark/mine,sealmark/empty,sealmark"; got != want {
		t.Errorf("suites %s, want %s", got, want)
	}
	run := doc.Suites[3].Cases
	if len(run) != 1 || run[0].Name != "run" || run[0].Error == nil || run[0].Error.Message != "server exited during initialize: exit status 1" {
		t.Errorf("harness suite cases %+v, want one testcase run in error", run)
	}
	for _, s := range doc.Suites {
		if len(s.Properties) == 0 || s.Properties[0].Name != "class" || s.Properties[0].Value != Custom {
			t.Errorf("suite %s properties %+v, want the class first", s.Name, s.Properties)
		}
	}
}

func TestWriteJUnitVerdicts(t *testing.T) {
	rep := &Report{FailOn: "medium", Packs: []Pack{{Name: "p", Probes: []Probe{
		{ID: "A", Name: "pass", Verdict: packs.Passed, Millis: 1500, Notes: []string{"tried 3 paths"}},
		{ID: "B", Name: "fail", Verdict: packs.Failed, Severity: packs.High, Findings: []packs.Finding{
			{Severity: packs.High, Message: "first\nmore", CWE: "CWE-22", Evidence: []packs.Evidence{{Observer: "files", Detail: "opened x"}}},
			{Severity: packs.Low, Confidence: packs.ConfidenceLow, Message: "second"},
		}},
		{ID: "C", Name: "bare-fail", Verdict: packs.Failed, Severity: packs.Medium},
		{ID: "D", Name: "na", Verdict: packs.NotApplicable, Reason: "no path-taking tool"},
		{ID: "E", Name: "inc", Verdict: packs.Inconclusive, Reason: "control timed out"},
		{ID: "F", Name: "err", Verdict: packs.Errored, Reason: "observer lost data"},
		{ID: "G", Name: "odd", Verdict: "maybe"},
	}}}}
	doc, _ := readJUnit(t, rep)
	cs := doc.Suites[0].Cases
	if len(cs) != 7 {
		t.Fatalf("%d testcases, want 7", len(cs))
	}
	if c := cs[0]; c.Failure != nil || c.Error != nil || c.Skipped != nil || c.Time != "1.500" || c.SystemOut != "note: tried 3 paths" || c.Classname != "p" {
		t.Errorf("passing case %+v, want no outcome, time 1.500, the note as system-out, classname p", c)
	}
	if f := cs[1].Failure; f == nil || f.Message != "B high: first …" || f.Type != "high" ||
		f.Text != "B high: first\n  more [CWE-22]\n  evidence: files: opened x\nB low (low confidence): second" {
		t.Errorf("failing case %+v", f)
	}
	if f := cs[2].Failure; f == nil || f.Message != "C medium: probe bare-fail failed without reporting a finding" || f.Type != "medium" {
		t.Errorf("failure without a finding: %+v", f)
	}
	if s := cs[3].Skipped; s == nil || s.Message != "no path-taking tool" {
		t.Errorf("not-applicable case %+v, want skipped with the reason", s)
	}
	if s := cs[4].Skipped; s == nil || s.Message != "inconclusive: control timed out" {
		t.Errorf("inconclusive case %+v, want skipped inconclusive: reason", s)
	}
	if e := cs[5].Error; e == nil || e.Message != "F the harness broke: observer lost data" {
		t.Errorf("error case %+v", e)
	}
	if e := cs[6].Error; e == nil || e.Message != "G unknown verdict maybe" {
		t.Errorf("unknown verdict case %+v, want an error", e)
	}
	if doc.Tests != 7 || doc.Failures != 2 || doc.Errors != 2 || doc.Skipped != 2 {
		t.Errorf("root counts %d %d %d %d, want 7 2 2 2", doc.Tests, doc.Failures, doc.Errors, doc.Skipped)
	}
	if doc.Time != "1.500" || doc.Suites[0].Time != "1.500" {
		t.Errorf("times root %s suite %s, want the probes' sum 1.500", doc.Time, doc.Suites[0].Time)
	}
}

func TestWriteJUnitHostileText(t *testing.T) {
	hostile := "a\x00b\x1b[2Jc\xffd\ufffee\u202ef]]><x y='1'>&amp;\r\nsecond\x0bline"
	rep := &Report{
		Class:  hostile,
		FailOn: "info",
		Tool:   Tool{Version: hostile},
		Packs: []Pack{{Name: hostile, Probes: []Probe{
			{ID: hostile, Name: hostile, Verdict: packs.Failed, Reason: hostile, Notes: []string{hostile},
				Findings: []packs.Finding{{Message: hostile, CWE: hostile, Evidence: []packs.Evidence{{Observer: hostile, Detail: hostile}}}}},
			{ID: "N", Name: "n", Verdict: packs.NotApplicable, Reason: hostile},
			{ID: "E", Name: "e", Verdict: packs.Errored, Reason: hostile},
			{ID: "U", Name: "u", Verdict: packs.Verdict(hostile)},
		}}},
		HarnessError: hostile,
	}
	doc, raw := readJUnit(t, rep) // a strict parse: XML 1.0 forbids \x00, \x1b, \x0b, U+FFFE
	if !utf8.Valid(raw) {
		t.Error("JUnit is not valid UTF-8")
	}
	if bytes.ContainsRune(raw, utf8.RuneError) {
		t.Error("JUnit holds U+FFFD: text was replaced, not escaped")
	}
	for i, b := range raw {
		if b < 0x20 && b != '\n' {
			t.Fatalf("JUnit byte %d is control character %#x", i, b)
		}
	}
	want := `a\x00b\x1b[2Jc\xffd\ufffee\u202ef]]><x y='1'>&amp;`
	c := doc.Suites[0].Cases[0]
	for name, got := range map[string]string{
		"suite name": doc.Suites[0].Name, "classname": c.Classname, "case name": c.Name,
		"failure message": c.Failure.Message, "failure text": c.Failure.Text, "system-out": c.SystemOut,
		"skipped message": doc.Suites[0].Cases[1].Skipped.Message, "error message": doc.Suites[0].Cases[2].Error.Message,
		"unknown verdict": doc.Suites[0].Cases[3].Error.Message, "harness error": doc.Suites[1].Cases[0].Error.Text,
		"property": doc.Suites[0].Properties[0].Value,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("%s = %q, want it to hold %q", name, got, want)
		}
	}
	if !strings.Contains(c.Failure.Text, `\x0bline`) || !strings.Contains(c.Failure.Text, "\n") {
		t.Errorf("failure text %q does not keep its lines apart, escaped", c.Failure.Text)
	}
}

func TestWriteJUnitAcceptedFindings(t *testing.T) {
	finding := func(msg, accepted string) packs.Finding {
		return packs.Finding{Severity: packs.High, Message: msg, Accepted: accepted}
	}
	rep := &Report{Packs: []Pack{{Name: "core", Probes: []Probe{
		{ID: "ALL", Name: "all-accepted", Verdict: packs.Failed, Severity: packs.High,
			Findings: []packs.Finding{finding("one", "known since v1"), finding("two", "known since v2")}},
		{ID: "SOME", Name: "some-accepted", Verdict: packs.Failed, Severity: packs.High,
			Findings: []packs.Finding{finding("kept", "known since v1"), finding("open", "")}},
	}}}}
	Finalize(rep, nil)
	doc, _ := readJUnit(t, rep)
	if doc.Tests != 2 || doc.Failures != 1 || doc.Skipped != 1 {
		t.Fatalf("tests=%d failures=%d skipped=%d, want 2 1 1", doc.Tests, doc.Failures, doc.Skipped)
	}
	all, some := doc.Suites[0].Cases[0], doc.Suites[0].Cases[1]
	if all.Failure != nil || all.Skipped == nil || all.Skipped.Message != "ALL accepted by the baseline: known since v1" {
		t.Errorf("all accepted: failure %+v skipped %+v, want skipped with the justification", all.Failure, all.Skipped)
	}
	if !strings.Contains(all.SystemOut, "ALL high: one") || !strings.Contains(all.SystemOut, "accepted by the baseline: known since v2") {
		t.Errorf("all accepted: system-out %q lacks the findings", all.SystemOut)
	}
	if some.Failure == nil || some.Failure.Message != "SOME high: open" {
		t.Fatalf("some accepted: failure %+v, want the open finding in the message", some.Failure)
	}
	if !strings.Contains(some.Failure.Text, "SOME high: kept\n  accepted by the baseline: known since v1") {
		t.Errorf("some accepted: failure text %q does not mark the accepted finding", some.Failure.Text)
	}
}

func TestWriteJUnitWarningsPass(t *testing.T) {
	rep := &Report{FailOn: "high", Packs: []Pack{{Name: "p", Probes: []Probe{
		{ID: "LOW", Name: "low", Verdict: packs.Failed, Severity: packs.Low, Findings: []packs.Finding{{Severity: packs.Low, Message: "a low one"}}},
		{ID: "HIGH", Name: "high", Verdict: packs.Failed, Severity: packs.High, Findings: []packs.Finding{
			{Severity: packs.Low, Message: "a low one first"}, {Severity: packs.High, Message: "the high one"}}},
	}}}}
	doc, _ := readJUnit(t, rep)
	low, high := doc.Suites[0].Cases[0], doc.Suites[0].Cases[1]
	if low.Failure != nil || low.Skipped != nil || low.Error != nil {
		t.Errorf("a finding below fail_on: %+v, want a passed testcase", low)
	}
	if want := "warning: below fail_on high\nLOW low: a low one"; low.SystemOut != want {
		t.Errorf("system-out %q, want %q", low.SystemOut, want)
	}
	if high.Failure == nil || high.Failure.Message != "HIGH high: the high one" {
		t.Errorf("failure %+v, want the message of the finding that fails the run", high.Failure)
	}
	if doc.Failures != 1 {
		t.Errorf("%d failures, want 1", doc.Failures)
	}
}
