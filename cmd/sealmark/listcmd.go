package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// listOptions are the flags of list.
type listOptions struct {
	json, wide bool
	packs      string
}

// defaultListWidth is list's row width when neither COLUMNS nor the
// terminal gives one (the output is a pipe or a file).
const defaultListWidth = 100

// listFlags are the flags of list; its usage goes to w.
func listFlags(w io.Writer) (*flag.FlagSet, *listOptions) {
	o := &listOptions{}
	set := flag.NewFlagSet("sealmark list", flag.ContinueOnError)
	set.SetOutput(w)
	set.Usage = func() {
		fmt.Fprint(w, "usage: sealmark list [--json] [--wide] [--packs PACKS] [PROBE]\n\n"+
			"Lists every probe: its pack, id, name, severity, CWE and the rule it enforces, one row\n"+
			"each, cut to the terminal's width (COLUMNS, else the terminal's, else 100 columns;\n"+
			"--wide for whole rows). With PROBE (an id, pack/name or name), shows that probe in full.\n"+
			"The names are what --probes, --skip-probes and go test -run select (pack/name).\n\nflags:\n")
		set.PrintDefaults()
	}
	set.BoolVar(&o.json, "json", false, "write a JSON array, one object per probe (one object with PROBE)")
	set.BoolVar(&o.wide, "wide", false, "write whole rows, however wide")
	set.StringVar(&o.packs, "packs", "", "list only these packs (comma-separated)")
	return set, o
}

// listed is one probe as list shows it.
type listed struct {
	Pack     string   `json:"pack"`
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Severity string   `json:"severity"`
	CWE      string   `json:"cwe,omitempty"`
	Active   bool     `json:"active,omitempty"`
	Requires []string `json:"requires,omitempty"`
	Doc      string   `json:"doc"`
}

// listCmd lists the probes of the built-in packs, and core's drift check,
// or shows one of them in full.
func listCmd(args []string, stdout, stderr io.Writer) int {
	set, o := listFlags(stderr)
	if err := parseFlags(set, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return report.ExitClean
		}
		return report.ExitUsage
	}
	if set.NArg() > 1 {
		fmt.Fprintf(stderr, "sealmark list: want at most one probe, got %d: %s\n", set.NArg(), strings.Join(set.Args(), " "))
		return report.ExitUsage
	}
	var want []string
	for p := range strings.SplitSeq(o.packs, ",") {
		if p = strings.TrimSpace(p); p != "" {
			want = append(want, p)
		}
	}
	probes, err := engine.Catalog(catalogue.All, want)
	if err != nil {
		fmt.Fprintf(stderr, "sealmark list: --packs: %v\n", err)
		return report.ExitUsage
	}
	var rows []listed
	for _, p := range probes {
		rows = append(rows, listed{Pack: p.Pack, ID: p.ID, Name: p.Name, Severity: p.Severity.String(), CWE: p.CWE, Active: p.Active, Requires: requirements(p.Requires), Doc: p.Doc})
	}
	if set.NArg() == 1 {
		return listOne(rows, set.Arg(0), o.json, stdout, stderr)
	}
	if o.json {
		return writeListJSON(rows, stdout, stderr)
	}
	width := 0
	if !o.wide {
		width = listWidth(stdout, os.Getenv("COLUMNS"))
	}
	for l := range strings.Lines(listTable(rows, width)) {
		io.WriteString(stdout, cut(strings.TrimSuffix(l, "\n"), width)+"\n")
	}
	return report.ExitClean
}

// minRuleWidth is the least room for the rule that keeps every column;
// with less, the table drops the pack, name and CWE columns.
const minRuleWidth = 40

// listTable is list's table for rows width characters wide (0: any
// width): every column when the rule keeps minRuleWidth characters, else
// ID, SEVERITY and RULE only (the ID starts with the pack's name, and
// sealmark list ID shows the rest).
func listTable(rows []listed, width int) string {
	full := [][]string{{"PACK", "ID", "NAME", "SEVERITY", "CWE", "RULE"}}
	narrow := [][]string{{"ID", "SEVERITY", "RULE"}}
	for _, r := range rows {
		full = append(full, []string{r.Pack, r.ID, r.Name, r.Severity, orDash(r.CWE), ruleText(r)})
		narrow = append(narrow, []string{r.ID, r.Severity, ruleText(r)})
	}
	cols := full
	if width > 0 && width-leading(full) < minRuleWidth {
		cols = narrow
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, row := range cols {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	return b.String()
}

// leading is the width of every column of table but the last, with the
// two spaces after each.
func leading(table [][]string) int {
	n := 0
	for c := 0; c < len(table[0])-1; c++ {
		w := 0
		for _, row := range table {
			w = max(w, utf8.RuneCountInString(row[c]))
		}
		n += w + 2
	}
	return n
}

// listOne shows the probe called name (its id, pack/name or name) in
// full: every field, one a line.
func listOne(rows []listed, name string, asJSON bool, stdout, stderr io.Writer) int {
	var known []string
	for _, r := range rows {
		if strings.EqualFold(r.ID, name) || r.Pack+"/"+r.Name == name || r.Name == name {
			if asJSON {
				return writeListJSON(r, stdout, stderr)
			}
			writeRule(stdout, r)
			return report.ExitClean
		}
		known = append(known, r.ID, r.Pack+"/"+r.Name)
	}
	fmt.Fprintf(stderr, "sealmark list: no probe %q%s (sealmark list shows them)\n", name, config.DidYouMean(name, known))
	return report.ExitUsage
}

// writeRule writes one probe, every field on a line of its own.
func writeRule(w io.Writer, r listed) {
	active := "no: runs in every run"
	if r.Active {
		active = "yes: may change state; runs only with --active"
	}
	requires := "nothing: applies to any server"
	if len(r.Requires) > 0 {
		requires = strings.Join(r.Requires, ", ") + " (not applicable to any other server)"
	}
	packDoc := ""
	for _, pk := range catalogue.All {
		if pk.Name == r.Pack && pk.Doc != "" {
			packDoc = " (" + pk.Doc + ")"
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	for _, f := range [][2]string{
		{"id", r.ID},
		{"name", r.Name},
		{"pack", r.Pack + packDoc},
		{"severity", r.Severity},
		{"cwe", orDash(r.CWE)},
		{"active", active},
		{"requires", requires},
		{"rule", r.Doc},
		{"select", "--probes " + r.Pack + "/" + r.Name + " (or " + r.ID + "); go test -run '<Test>/" + r.Pack + "/" + r.Name + "'"},
	} {
		fmt.Fprintf(tw, "%s:\t%s\n", f[0], f[1])
	}
	tw.Flush()
}

// writeListJSON writes v as indented JSON.
func writeListJSON(v any, stdout, stderr io.Writer) int {
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "sealmark list: %v\n", err)
		return report.ExitHarness
	}
	return report.ExitClean
}

// requirements names what a probe needs of the server to apply.
func requirements(r packs.Requirement) []string {
	var out []string
	if r&packs.RequiresHTTP != 0 {
		out = append(out, "an HTTP transport")
	}
	if r&packs.RequiresModern != 0 {
		out = append(out, "the modern protocol era")
	}
	return out
}

// ruleText is the RULE column: the rule, marked when active.
func ruleText(r listed) string {
	if r.Active {
		return r.Doc + " (active)"
	}
	return r.Doc
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// listWidth is the width list cuts its rows to: COLUMNS when it is a
// positive number, else the terminal's width when stdout is one, else
// defaultListWidth.
func listWidth(stdout io.Writer, columns string) int {
	if n, err := strconv.Atoi(strings.TrimSpace(columns)); err == nil && n > 0 {
		return n
	}
	if f, ok := stdout.(*os.File); ok && isTerminal(f) {
		if n := terminalWidth(f); n > 0 {
			return n
		}
	}
	return defaultListWidth
}

// cut shortens s to width characters, its last one "…" when cut; width 0
// keeps s whole.
func cut(s string, width int) string {
	if width <= 0 || utf8.RuneCountInString(s) <= width {
		return s
	}
	runes := []rune(s)
	return strings.TrimRight(string(runes[:max(0, width-1)]), " ") + "…"
}
