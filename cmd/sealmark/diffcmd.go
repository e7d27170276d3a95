package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// diffFlags are the flags of diff; its usage goes to w.
func diffFlags(w io.Writer) (*flag.FlagSet, *string) {
	set := flag.NewFlagSet("sealmark diff", flag.ContinueOnError)
	set.SetOutput(w)
	failOn := set.String("fail-on", "high", "exit 1 when NEW has something new at or above `SEVERITY` (low, medium, high, critical)")
	set.Usage = func() {
		fmt.Fprint(w, "usage: sealmark diff [--fail-on SEVERITY] OLD.json NEW.json\n\n"+
			"Compares two JSON reports of the same server: new findings, fixed ones, verdict changes\n"+
			"per probe, probes and packs that ran in one report only. Exit 1 when NEW has a new finding,\n"+
			"or a newly failing probe, at or above --fail-on (or a harness error); 0 otherwise;\n"+
			"2 usage error; 3 a report cannot be read.\n\nflags:\n")
		set.PrintDefaults()
	}
	return set, failOn
}

// diffCmd compares two JSON reports: new findings, fixed ones, verdict
// changes. Exit 1 when the new report regressed at --fail-on, 2 on usage
// errors, 3 when a report cannot be read.
func diffCmd(args []string, stdout, stderr io.Writer) int {
	set, failOn := diffFlags(stderr)
	if err := set.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return report.ExitClean
		}
		return report.ExitUsage
	}
	sev, err := packs.ParseSeverity(*failOn)
	if err != nil || sev == packs.Info {
		fmt.Fprintf(stderr, "sealmark diff: --fail-on: want low, medium, high or critical, got %q\n", *failOn)
		return report.ExitUsage
	}
	if set.NArg() != 2 {
		fmt.Fprintln(stderr, "usage: sealmark diff [--fail-on SEVERITY] OLD.json NEW.json")
		return report.ExitUsage
	}
	var reps [2]*report.Report
	for i, path := range set.Args() {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintf(stderr, "sealmark diff: %v\n", err)
			return report.ExitHarness
		}
		reps[i], err = report.ReadJSON(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "sealmark diff: %s: %v\n", path, err)
			return report.ExitHarness
		}
	}
	d := report.Diff(reps[0], reps[1])
	if err := report.WriteDiff(stdout, d); err != nil {
		fmt.Fprintf(stderr, "sealmark diff: %v\n", err)
		return report.ExitHarness
	}
	if d.RegressedAt(sev) {
		return report.ExitFindings
	}
	if d.Regressed() {
		fmt.Fprintf(stdout, "nothing new at or above --fail-on %s\n", sev)
	}
	return report.ExitClean
}
