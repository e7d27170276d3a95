// Package sarifcheck validates SARIF logs against the official SARIF 2.1.0
// JSON Schema, for tests. The schema comes from the pinned npm package in
// testdata/npm (installed by .ci/run with npm ci), not from this module.
//
//	sch := sarifcheck.Schema(t, "../..") // the module root, relative to the test
//	if err := sarifcheck.Validate(sch, log); err != nil {
//		t.Errorf("the SARIF log does not validate: %v", err)
//	}
package sarifcheck

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaFile is the official SARIF 2.1.0 JSON Schema (draft-04), relative
// to the module root.
const SchemaFile = "testdata/npm/node_modules/sarif-schema/lib/schemas/sarif-2.1.0-rtm.5.json"

// Schema compiles the official schema found beneath root, the module root.
// It skips t when the file is absent (npm ci has not run in testdata/npm).
func Schema(t testing.TB, root string) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join(root, SchemaFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("the SARIF 2.1.0 schema is not installed (%s): run npm ci in testdata/npm", path)
	}
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
