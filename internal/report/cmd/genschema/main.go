// Command genschema writes the report's JSON Schema (report.JSONSchema)
// to the file its argument names, docs/report.schema.json:
//
//	go generate ./internal/report
//
// TestSchemaFileIsGenerated fails when the committed file differs.
package main

import (
	"fmt"
	"os"

	"github.com/sealmark/sealmark/internal/report"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: genschema FILE")
		os.Exit(2)
	}
	b, err := report.JSONSchemaBytes()
	if err == nil {
		err = os.WriteFile(os.Args[1], b, 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "genschema: %v\n", err)
		os.Exit(1)
	}
}
