package report

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/sealmark/sealmark/packs"
)

//go:generate go run ./cmd/genschema ../../docs/report.schema.json

// SchemaID is the $id of the published JSON Schema of the report,
// docs/report.schema.json in the repository.
const SchemaID = "https://raw.githubusercontent.com/sealmark/sealmark/main/docs/report.schema.json"

// JSONSchema is the JSON Schema (draft 2020-12) of what WriteJSON,
// WriteJSONSet and WriteJSONNamed write, generated from the model's types
// (jsonschema.For): one schema for both shapes, told apart by the "schema"
// field only a report has:
//
//   - a report (WriteJSON: sealmark run --json), $defs/report;
//   - a set of reports keyed by name (WriteJSONSet, WriteJSONNamed: the
//     go test door's report, sealmark scan --json, sealmark merge --json),
//     $defs/reportSet, each value a report.
//
// An object has exactly the fields the model writes (additionalProperties
// false): the schema is that of this version of Sealmark, and a field added
// later is added to it. go generate ./internal/report writes it, with each
// property described by its field's doc comment, to
// docs/report.schema.json (internal/report/cmd/genschema).
func JSONSchema() (*jsonschema.Schema, error) {
	names := func(values ...string) []any {
		out := make([]any, len(values))
		for i, v := range values {
			out[i] = v
		}
		return out
	}
	var severities, verdicts []string
	for s := packs.Info; s <= packs.Critical; s++ {
		severities = append(severities, s.String())
	}
	for _, v := range []packs.Verdict{packs.Passed, packs.Failed, packs.NotApplicable, packs.Inconclusive, packs.Errored} {
		verdicts = append(verdicts, string(v))
	}
	outcomes := []string{string(OutcomeFail), string(OutcomeWarn), string(OutcomeAccepted)}
	rep, err := jsonschema.For[Report](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[packs.Severity]():   {Type: "string", Enum: names(severities...)},
		reflect.TypeFor[packs.Confidence](): {Type: "string", Enum: names(packs.ConfidenceHigh.String(), packs.ConfidenceMedium.String(), packs.ConfidenceLow.String())},
		reflect.TypeFor[packs.Verdict]():    {Type: "string", Enum: names(verdicts...)},
	}})
	if err != nil {
		return nil, fmt.Errorf("report: schema: %w", err)
	}
	var version any = SchemaVersion
	rep.Properties["schema"].Const = &version
	rep.Properties["class"].Enum = names(Standard, Custom)
	rep.Properties["failOn"].Enum = names(severities...)
	rep.Properties["started"].Format = "date-time"
	rep.Properties["finished"].Format = "date-time"
	sum := rep.Properties["summary"].Properties
	sum["verdicts"].PropertyNames = &jsonschema.Schema{Enum: names(verdicts...)}
	sum["outcomes"].PropertyNames = &jsonschema.Schema{Enum: names(outcomes...)}
	sum["findings"].PropertyNames = &jsonschema.Schema{Enum: names(severities...)}
	rep.Title = "Sealmark report"
	rep.Description = "One run's report (sealmark run --json). Every field is described in docs/report-schema.md."

	isReport := &jsonschema.Schema{Required: []string{"schema"}, Properties: map[string]*jsonschema.Schema{"schema": {Type: "string"}}}
	return &jsonschema.Schema{
		Schema: "https://json-schema.org/draft/2020-12/schema",
		ID:     SchemaID,
		Title:  "Sealmark JSON report",
		Description: "A report (" + SchemaVersion + ", sealmark run --json) or a set of reports keyed by name " +
			"(the go test door's report, sealmark scan --json, sealmark merge --json); an object with a string schema field is a report.",
		If:   isReport,
		Then: &jsonschema.Schema{Ref: "#/$defs/report"},
		Else: &jsonschema.Schema{Ref: "#/$defs/reportSet"},
		Defs: map[string]*jsonschema.Schema{
			"report": rep,
			"reportSet": {
				Title:                "Sealmark reports keyed by name",
				Description:          "Reports keyed by test name (the go test door) or server name (scan, merge).",
				Type:                 "object",
				MinProperties:        jsonschema.Ptr(1),
				AdditionalProperties: &jsonschema.Schema{Ref: "#/$defs/report"},
			},
		},
	}, nil
}

var resolved = sync.OnceValues(func() (*jsonschema.Resolved, error) {
	s, err := JSONSchema()
	if err != nil {
		return nil, err
	}
	return s.Resolve(nil)
})

// ValidateJSON reports whether data, a JSON report or set of reports,
// matches JSONSchema; the error names each place it does not.
func ValidateJSON(data []byte) error {
	rs, err := resolved()
	if err != nil {
		return fmt.Errorf("report: schema: %w", err)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("report: validate: %w", err)
	}
	if err := rs.Validate(doc); err != nil {
		return fmt.Errorf("report: validate against %s: %w", SchemaID, err)
	}
	return nil
}

// writeCheck is what SetWriteCheck installed.
var writeCheck atomic.Pointer[func([]byte) error]

// SetWriteCheck makes every report WriteJSON and WriteJSONSet write pass
// through check first; when check fails, nothing is written and the writer
// returns its error. Tests install ValidateJSON (in TestMain, before any
// report is written), so every report a test writes is validated against
// the published schema; nil removes the check.
func SetWriteCheck(check func([]byte) error) {
	if check == nil {
		writeCheck.Store(nil)
		return
	}
	writeCheck.Store(&check)
}

// checkWritten runs the installed write check on an encoded report.
func checkWritten(data []byte) error {
	if check := writeCheck.Load(); check != nil {
		if err := (*check)(data); err != nil {
			return fmt.Errorf("report: the JSON does not match its schema: %w", err)
		}
	}
	return nil
}
