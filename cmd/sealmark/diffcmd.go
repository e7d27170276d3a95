package main

import (
	"fmt"
	"io"
	"os"

	"github.com/sealmark/sealmark/internal/report"
)

// diffCmd compares two JSON reports: new findings, fixed ones, verdict
// changes. Exit 1 when the new report regressed, 2 on usage errors, 3 when
// a report cannot be read.
func diffCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "usage: sealmark diff OLD.json NEW.json")
		return 2
	}
	var reps [2]*report.Report
	for i, path := range args {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintf(stderr, "sealmark diff: %v\n", err)
			return 3
		}
		reps[i], err = report.ReadJSON(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "sealmark diff: %s: %v\n", path, err)
			return 3
		}
	}
	d := report.Diff(reps[0], reps[1])
	if err := report.WriteDiff(stdout, d); err != nil {
		fmt.Fprintf(stderr, "sealmark diff: %v\n", err)
		return 3
	}
	if d.Regressed() {
		return 1
	}
	return 0
}
