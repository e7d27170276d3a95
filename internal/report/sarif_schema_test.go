package report

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/internal/sarifcheck"
	"github.com/sealmark/sealmark/packs"
)

func TestSARIFValidatesAgainstTheOfficialSchema(t *testing.T) {
	sch := sarifcheck.Schema(t, "../..")
	accepted := sampleReport()
	for pi := range accepted.Packs {
		for qi := range accepted.Packs[pi].Probes {
			if fs := accepted.Packs[pi].Probes[qi].Findings; len(fs) > 0 {
				fs[0].Accepted = "kept for old clients until v3"
			}
		}
	}
	harness := &Report{Class: Custom, ClassReasons: []string{"--no-sandbox"}, HarnessError: "server exited during initialize"}
	Finalize(harness, nil)
	hostile := "a\x00b\x1b[2Jc\xffd\u202ee\r\nsecond line"
	for name, tc := range map[string]struct {
		rep  *Report
		opts SARIFOptions
	}{
		"sample":             {sampleReport(), SARIFOptions{}},
		"sample, located":    {sampleReport(), SARIFOptions{ArtifactURI: "deploy/sealmark.yaml"}},
		"custom":             {customReport(), SARIFOptions{}},
		"accepted findings":  {accepted, SARIFOptions{}},
		"harness error":      {harness, SARIFOptions{}},
		"empty":              {&Report{}, SARIFOptions{}},
		"hostile text, CWEs": {hostileSARIFReport(hostile), SARIFOptions{}},
	} {
		var buf bytes.Buffer
		if err := WriteSARIF(&buf, tc.rep, tc.opts); err != nil {
			t.Fatalf("%s: WriteSARIF: %v", name, err)
		}
		if err := sarifcheck.Validate(sch, buf.Bytes()); err != nil {
			t.Errorf("%s: the SARIF schema rejects the log: %v\n%s", name, err, buf.Bytes())
		}
	}
	for _, golden := range []string{"testdata/standard.sarif.golden", "testdata/custom.sarif.golden"} {
		raw, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if err := sarifcheck.Validate(sch, raw); err != nil {
			t.Errorf("%s: the SARIF schema rejects it: %v", golden, err)
		}
	}
}

// TestSARIFSchemaRejectsBrokenLogs proves the validation above can fail: a
// log with each of these mistakes is refused by the same compiled schema.
func TestSARIFSchemaRejectsBrokenLogs(t *testing.T) {
	sch := sarifcheck.Schema(t, "../..")
	var buf bytes.Buffer
	// results located in a config file, so the log has a startLine to break
	if err := WriteSARIF(&buf, sampleReport(), SARIFOptions{ArtifactURI: "sealmark.yaml"}); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	if err := sarifcheck.Validate(sch, buf.Bytes()); err != nil {
		t.Fatalf("the unbroken log is rejected: %v", err)
	}
	for name, edit := range map[string][2]string{
		"wrong version":          {`"version": "2.1.0"`, `"version": "2.0.0"`},
		"unknown level":          {`"level": "error"`, `"level": "fatal"`},
		"start line 0":           {`"startLine": 1`, `"startLine": 0`},
		"unknown run property":   {`"tool": {`, `"tools": {`},
		"location kind a number": {`"kind": "module"`, `"kind": 7`},
		"no execution status":    {`"executionSuccessful": true`, `"executionSuccessful": "yes"`},
	} {
		if !strings.Contains(good, edit[0]) {
			t.Fatalf("%s: the log has no %s to break:\n%s", name, edit[0], good)
		}
		broken := strings.Replace(good, edit[0], edit[1], 1)
		if err := sarifcheck.Validate(sch, []byte(broken)); err == nil {
			t.Errorf("%s: the schema accepts a log with %s", name, edit[1])
		}
	}
}

// hostileSARIFReport carries control bytes, invalid UTF-8 and bidi marks in
// every text field, and findings of every severity with CWEs.
func hostileSARIFReport(hostile string) *Report {
	var probes []Probe
	for i, sev := range []packs.Severity{packs.Critical, packs.High, packs.Medium, packs.Low} {
		probes = append(probes, Probe{
			ID: "P" + string(rune('A'+i)), Name: hostile, Doc: hostile, Verdict: packs.Failed, Severity: sev,
			Findings: []packs.Finding{{Severity: sev, Message: hostile, CWE: "CWE-2" + string(rune('0'+i)),
				Evidence: []packs.Evidence{{Observer: hostile, Detail: hostile}}}},
		})
	}
	rep := &Report{
		Server:       Server{Command: "node\x1b", Args: []string{hostile}},
		Packs:        []Pack{{Name: "p\x07", Probes: probes}},
		Warnings:     []string{hostile},
		HarnessError: hostile,
	}
	Finalize(rep, nil)
	return rep
}
