// Package sarifcheck validates SARIF logs for tests: against the official
// SARIF 2.1.0 JSON Schema, and with the SARIF multitool's GitHub rules
// (what code scanning requires). Both come from pinned npm packages in
// testdata/npm (sarif-schema, sarif-multitool; installed by .ci/run with
// npm ci), not from this module; the checks skip when they are absent.
//
//	sch := sarifcheck.Schema(t, "../..") // the module root, relative to the test
//	if err := sarifcheck.Validate(sch, log); err != nil {
//		t.Errorf("the SARIF log does not validate: %v", err)
//	}
//	for _, e := range sarifcheck.GitHub(t, log) {
//		t.Errorf("code scanning would refuse the log: %s", e)
//	}
package sarifcheck

import (
	"bytes"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sealmark/sealmark/internal/realserver"
)

// Schema compiles the official schema (draft-04), from the pinned npm
// package realserver.SARIFSchema. It skips t when the package is not
// installed. root is kept for callers and no longer used: the module root
// is found from the working directory.
func Schema(t testing.TB, root string) *jsonschema.Schema {
	t.Helper()
	path := realserver.SARIFSchema.Script(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	if err := c.AddResource("sarif-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif-2.1.0.json")
	if err != nil {
		t.Fatalf("compiling the SARIF schema: %v", err)
	}
	return sch
}

// Validate reports whether raw is a SARIF log the schema accepts.
func Validate(sch *jsonschema.Schema, raw []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}
