package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
)

// listOptions are the flags of list.
type listOptions struct {
	json  bool
	packs string
}

// listFlags are the flags of list; its usage goes to w.
func listFlags(w io.Writer) (*flag.FlagSet, *listOptions) {
	o := &listOptions{}
	set := flag.NewFlagSet("sealmark list", flag.ContinueOnError)
	set.SetOutput(w)
	set.Usage = func() {
		fmt.Fprint(w, "usage: sealmark list [--json] [--packs PACKS]\n\n"+
			"Lists every probe: its pack, id, name, severity, CWE and the rule it enforces. The names\n"+
			"are what --probes, --skip-probes and go test -run select (pack/name).\n\nflags:\n")
		set.PrintDefaults()
	}
	set.BoolVar(&o.json, "json", false, "write a JSON array, one object per probe")
	set.StringVar(&o.packs, "packs", "", "list only these packs (comma-separated)")
	return set, o
}

// listed is one probe as list shows it.
type listed struct {
	Pack     string `json:"pack"`
	ID       string `json:"id"`
	Name     string `json:"name"`
	Severity string `json:"severity"`
	CWE      string `json:"cwe,omitempty"`
	Active   bool   `json:"active,omitempty"`
	Doc      string `json:"doc"`
}

// listCmd lists the probes of the built-in packs, and core's drift check.
func listCmd(args []string, stdout, stderr io.Writer) int {
	set, o := listFlags(stderr)
	if err := parseFlags(set, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return report.ExitClean
		}
		return report.ExitUsage
	}
	if set.NArg() > 0 {
		fmt.Fprintf(stderr, "sealmark list: unexpected argument %q\n", set.Arg(0))
		return report.ExitUsage
	}
	var want []string
	for p := range strings.SplitSeq(o.packs, ",") {
		if p = strings.TrimSpace(p); p != "" {
			want = append(want, p)
		}
	}
	probes, err := engine.Catalog(want)
	if err != nil {
		fmt.Fprintf(stderr, "sealmark list: --packs: %v\n", err)
		return report.ExitUsage
	}
	var rows []listed
	for _, p := range probes {
		rows = append(rows, listed{Pack: p.Pack, ID: p.ID, Name: p.Name, Severity: p.Severity.String(), CWE: p.CWE, Active: p.Active, Doc: p.Doc})
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			fmt.Fprintf(stderr, "sealmark list: %v\n", err)
			return report.ExitHarness
		}
		return report.ExitClean
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PACK\tID\tNAME\tSEVERITY\tCWE\tRULE")
	for _, r := range rows {
		cwe := r.CWE
		if cwe == "" {
			cwe = "-"
		}
		doc := r.Doc
		if r.Active {
			doc += " (active)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Pack, r.ID, r.Name, r.Severity, cwe, doc)
	}
	tw.Flush()
	return report.ExitClean
}
