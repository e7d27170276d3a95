package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// schemaFile is the published schema, docs/report.schema.json.
var schemaFile = filepath.Join("..", "..", "..", "..", "docs", "report.schema.json")

func TestSchemaFileIsGenerated(t *testing.T) {
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the report model generates: run go generate ./internal/report", schemaFile)
	}
}

func TestSchemaDescribesFieldsFromTheirComments(t *testing.T) {
	b, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		// report.Report.HarnessError's doc comment
		`"description": "HarnessError is set when the harness could not run at all`,
		// packs.Finding.Fingerprint, two levels down
		`"description": "Fingerprint is stable across runs of the same server`,
		// observers.Record.Summary's line comment
		`"description": "one line for people: \"created root-evil/x (5 bytes)\""`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the schema lacks %s", want)
		}
	}
}
