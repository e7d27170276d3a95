package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/sealmark/sealmark/packs"
)

// Every report a test of this package writes is validated against the
// published schema: WriteJSON and WriteJSONSet fail on a report it
// rejects.
func init() { SetWriteCheck(ValidateJSON) }

// writeUnchecked turns the schema check off for the rest of the test: for
// the redaction tests, whose reports put a secret into every string field,
// the schema's constants and enums (class, verdicts) too, which no real
// report does.
func writeUnchecked(t testing.TB) {
	SetWriteCheck(nil)
	t.Cleanup(func() { SetWriteCheck(ValidateJSON) })
}

// schemaFile is the published schema, docs/report.schema.json.
var schemaFile = filepath.Join("..", "..", "docs", "report.schema.json")

// publishedSchema is the committed file itself, resolved: what a consumer
// validates against.
func publishedSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	raw, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s does not resolve: %v", schemaFile, err)
	}
	return rs
}

// validReports are a report and sets of reports as the writers write them.
func validReports(t *testing.T) map[string][]byte {
	t.Helper()
	SetWriteCheck(nil) // written unchecked here: the test checks them
	defer SetWriteCheck(ValidateJSON)
	out := map[string][]byte{}
	for name, rep := range map[string]*Report{"standard": sampleReport(), "custom": customReport()} {
		Finalize(rep, sampleRedactor())
		var b bytes.Buffer
		if err := WriteJSON(&b, rep); err != nil {
			t.Fatal(err)
		}
		out[name] = b.Bytes()
	}
	var set bytes.Buffer
	named := namedSample()
	named = append(named, NamedReport{Name: "schema", Report: named[0].Report}) // a server named like the report's field
	if err := WriteJSONNamed(&set, named); err != nil {
		t.Fatal(err)
	}
	out["set"] = set.Bytes()
	return out
}

func TestSchemaValidatesWhatTheWritersWrite(t *testing.T) {
	published := publishedSchema(t)
	for name, raw := range validReports(t) {
		if err := ValidateJSON(raw); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		if err := published.Validate(doc); err != nil {
			t.Errorf("%s: the published file rejects it: %v", name, err)
		}
	}
}

func TestSchemaRejectsAnInvalidReport(t *testing.T) {
	reports := validReports(t)
	for name, edit := range map[string]func(string) string{
		"an unknown verdict":  func(s string) string { return strings.Replace(s, `"verdict": "fail"`, `"verdict": "maybe"`, 1) },
		"an unknown severity": func(s string) string { return strings.Replace(s, `"severity": "critical"`, `"severity": "severe"`, 1) },
		"another schema": func(s string) string {
			return strings.Replace(s, `"schema": "sealmark.report/v1"`, `"schema": "sealmark.report/v2"`, 1)
		},
		"a field not in it": func(s string) string { return strings.Replace(s, `"class":`, `"klass": "x", "class":`, 1) },
		"a missing field":   func(s string) string { return strings.Replace(s, `"tool": {`, `"tools": {`, 1) },
		"a count as text": func(s string) string {
			return strings.Replace(s, `"acceptedFindings": 0`, `"acceptedFindings": "0"`, 1)
		},
		"an unknown summary":   func(s string) string { return strings.Replace(s, `"warn": `, `"maybe": `, 1) },
		"not an object at all": func(string) string { return `["sealmark.report/v1"]` },
	} {
		bad := edit(string(reports["standard"]))
		if bad == string(reports["standard"]) {
			t.Fatalf("%s: the edit changed nothing: the test proves nothing", name)
		}
		if err := ValidateJSON([]byte(bad)); err == nil {
			t.Errorf("%s: the schema accepts it", name)
		}
	}
	set := strings.Replace(string(reports["set"]), `"schema": "sealmark.report/v1"`, `"schema": 1`, 1)
	if err := ValidateJSON([]byte(set)); err == nil {
		t.Error("a set holding a report without a valid schema field: the schema accepts it")
	}
	if err := ValidateJSON([]byte(`{}`)); err == nil {
		t.Error("an empty set: the schema accepts it")
	}
}

func TestWriteJSONChecksAgainstTheSchema(t *testing.T) {
	rep := sampleReport()
	Finalize(rep, sampleRedactor())
	rep.Packs[0].Probes[0].Verdict = packs.Verdict("maybe")
	var buf bytes.Buffer
	err := WriteJSON(&buf, rep)
	if err == nil || !strings.Contains(err.Error(), "does not match its schema") {
		t.Fatalf("WriteJSON of a report with verdict maybe: %v, want the schema's refusal", err)
	}
	if buf.Len() != 0 {
		t.Error("a report the check refused was written")
	}
	if err := WriteJSONSet(&buf, map[string]*Report{"x": rep}); err == nil {
		t.Error("WriteJSONSet of a report with verdict maybe: no error")
	}
}
