package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/scan"
	"github.com/sealmark/sealmark/packs"
)

// mergeOptions are the flags of merge.
type mergeOptions struct{ json, sarif, junit, html, failOn string }

// mergeFlags are the flags of merge; its usage goes to w.
func mergeFlags(w io.Writer) (*flag.FlagSet, *mergeOptions) {
	o := &mergeOptions{}
	set := flag.NewFlagSet("sealmark merge", flag.ContinueOnError)
	set.SetOutput(w)
	set.Usage = func() {
		fmt.Fprint(w, "usage: sealmark merge [flags] REPORT.json...\n\n"+
			"Merges JSON reports of several servers (one sealmark scan --only NAME per CI job, or a\n"+
			"sealmark run report, named by its file name) into one: the table sealmark scan prints, and\n"+
			"the merged JSON, SARIF, JUnit and HTML. Exit 0 every server clean; 1 findings; 2 usage\n"+
			"error; 3 a server could not run, or a report cannot be read.\n\nflags:\n")
		set.PrintDefaults()
	}
	set.StringVar(&o.json, "json", "", "write the merged JSON report (reports keyed by server name) to `PATH`")
	set.StringVar(&o.sarif, "sarif", "", "write a SARIF 2.1.0 log with one run per server to `PATH`")
	set.StringVar(&o.junit, "junit", "", "write JUnit XML with one suite per server to `PATH`")
	set.StringVar(&o.html, "html", "", "write a self-contained HTML report (a row per server, drill-down to evidence) to `PATH`")
	set.StringVar(&o.failOn, "fail-on", "high", "lowest `SEVERITY` that makes the exit code 1 ("+packs.FailOnValues+")")
	return set, o
}

// mergeCmd merges per-server JSON reports into one.
func mergeCmd(args []string, stdout, stderr io.Writer) int {
	set, o := mergeFlags(stderr)
	if err := parseFlags(set, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return report.ExitClean
		}
		return report.ExitUsage
	}
	failOn, err := packs.ParseFailOn(o.failOn)
	if err != nil {
		fmt.Fprintf(stderr, "sealmark merge: --fail-on: %v\n", err)
		return report.ExitUsage
	}
	if set.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: sealmark merge [flags] REPORT.json...")
		return report.ExitUsage
	}
	if err := errors.Join(preflightOutputs("", config.Origin{}, o.json, o.sarif, o.junit), checkHTMLPath(o.html)); err != nil {
		fmt.Fprintf(stderr, "sealmark merge: %v\n", err)
		return report.ExitUsage
	}
	named, err := scan.ReadReports(set.Args())
	if err != nil {
		fmt.Fprintf(stderr, "sealmark merge: %v\n", err)
		return report.ExitHarness
	}
	var sarifOpts report.SARIFOptions
	if o.sarif != "" {
		sarifOpts = mergeSARIFOptions(stderr)
	}
	code := writeMerged(named, failOn, o.json, o.sarif, o.junit, sarifOpts, nil, stdout, stderr, "merge", report.TextOptions{})
	if err := writeHTML(o.html, named, failOn); err != nil {
		fmt.Fprintf(stderr, "sealmark merge: --html: %v\n", err)
		return report.ExitHarness
	}
	return code
}
