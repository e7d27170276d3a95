package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/scan"
	"github.com/sealmark/sealmark/packs"
)

// diffFlags are the flags of diff; its usage goes to w.
func diffFlags(w io.Writer) (*flag.FlagSet, *string) {
	set := flag.NewFlagSet("sealmark diff", flag.ContinueOnError)
	set.SetOutput(w)
	failOn := set.String("fail-on", "high", "exit 1 when NEW has something new at or above `SEVERITY` ("+packs.FailOnValues+")")
	set.Usage = func() {
		fmt.Fprint(w, "usage: sealmark diff [--fail-on SEVERITY] OLD.json NEW.json\n\n"+
			"Compares two JSON reports of the same server: new findings, fixed ones, verdict changes\n"+
			"(two merged reports of sealmark scan or merge: server by server, by name)\n"+
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
	if err := parseFlags(set, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return report.ExitClean
		}
		return report.ExitUsage
	}
	sev, err := packs.ParseFailOn(*failOn)
	if err != nil {
		fmt.Fprintf(stderr, "sealmark diff: --fail-on: %v\n", err)
		return report.ExitUsage
	}
	if set.NArg() != 2 {
		fmt.Fprintln(stderr, "usage: sealmark diff [--fail-on SEVERITY] OLD.json NEW.json")
		return report.ExitUsage
	}
	var sets [2][]scan.Named
	for i, path := range set.Args() {
		var err error
		if sets[i], err = scan.ReadReports([]string{path}); err != nil {
			fmt.Fprintf(stderr, "sealmark diff: %v\n", err)
			return report.ExitHarness
		}
	}
	if len(sets[0]) == 1 && len(sets[1]) == 1 {
		return diffOne(sets[0][0].Report, sets[1][0].Report, sev, stdout, stderr)
	}
	return diffMerged(sets[0], sets[1], sev, stdout, stderr)
}

// diffOne compares two reports of one server.
func diffOne(oldRep, newRep *report.Report, sev packs.Severity, stdout, stderr io.Writer) int {
	d := report.Diff(oldRep, newRep)
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

// diffMerged compares two merged reports (sealmark scan, sealmark merge)
// server by server: a server only in NEW is compared with an empty report,
// so each of its findings is new; a server only in OLD is named.
func diffMerged(olds, news []scan.Named, sev packs.Severity, stdout, stderr io.Writer) int {
	byName := map[string]*report.Report{}
	for _, o := range olds {
		byName[o.Name] = o.Report
	}
	code := report.ExitClean
	for _, n := range news {
		fmt.Fprintf(stdout, "== %s\n", n.Name)
		old, ok := byName[n.Name]
		if !ok {
			fmt.Fprintln(stdout, "(only in NEW)")
			old = &report.Report{}
		}
		delete(byName, n.Name)
		if c := diffOne(old, n.Report, sev, stdout, stderr); c > code {
			code = c
		}
	}
	for _, o := range olds {
		if _, gone := byName[o.Name]; gone {
			fmt.Fprintf(stdout, "== %s\n(only in OLD: not in the new scan)\n", o.Name)
		}
	}
	return code
}
