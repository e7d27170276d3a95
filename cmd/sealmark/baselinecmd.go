package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sealmark/sealmark/internal/report"
)

// baselineOptions are the flags of baseline write.
type baselineOptions struct {
	out, justification string
	force              bool
}

// baselineFlags are the flags of baseline write; its usage goes to w.
func baselineFlags(w io.Writer) (*flag.FlagSet, *baselineOptions) {
	o := &baselineOptions{}
	set := flag.NewFlagSet("sealmark baseline write", flag.ContinueOnError)
	set.SetOutput(w)
	set.StringVar(&o.out, "out", "sealmark-baseline.json", "write the baseline to `FILE`")
	set.BoolVar(&o.force, "force", false, "overwrite the file when it exists")
	set.StringVar(&o.justification, "justification", "", "the `REASON` every entry accepts its finding for; without it each entry's justification is empty and must be written in before --baseline takes the file")
	set.Usage = func() {
		fmt.Fprint(w, "usage: sealmark baseline write [--out FILE] [--force] [--justification REASON] REPORT.json\n\n"+
			"Writes a baseline that accepts every finding of REPORT.json's failing probes (probe id,\n"+
			"fingerprint, justification); a finding the report already marks accepted keeps its reason.\n"+
			"sealmark run --baseline FILE then keeps those findings in the report, marked accepted, and\n"+
			"they do not fail the run; an entry that matches no finding is stale and fails the run.\n"+
			"Exit 0 written, 2 usage error or the file exists without --force, 3 the report cannot be\n"+
			"read or the file cannot be written.\n\nflags:\n")
		set.PrintDefaults()
	}
	return set, o
}

// baselineCmd runs sealmark baseline SUBCOMMAND; write is the only one.
func baselineCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "write" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			set, _ := baselineFlags(stderr)
			set.Usage()
			return report.ExitClean
		}
		got := "nothing"
		if len(args) > 0 {
			got = fmt.Sprintf("%q", args[0])
		}
		fmt.Fprintf(stderr, "sealmark baseline: want the subcommand write, got %s\nusage: sealmark baseline write [--out FILE] [--force] [--justification REASON] REPORT.json\n", got)
		return report.ExitUsage
	}
	set, o := baselineFlags(stderr)
	if err := parseFlags(set, args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return report.ExitClean
		}
		return report.ExitUsage
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "sealmark baseline write: "+format+"\n", a...)
		return code
	}
	if set.NArg() != 1 {
		return fail(2, "want one JSON report (from sealmark run --json), got %d arguments", set.NArg())
	}
	if o.out == "" {
		return fail(2, "--out: want a file name")
	}
	if o.justification != "" && strings.TrimSpace(o.justification) == "" {
		return fail(2, "--justification: want a reason, got only spaces")
	}
	if _, err := os.Lstat(o.out); err == nil && !o.force {
		return fail(2, "%s exists; pass --force to overwrite it", o.out)
	}
	path := set.Arg(0)
	f, err := os.Open(path)
	if err != nil {
		return fail(3, "%v", err)
	}
	rep, err := report.ReadJSON(f)
	f.Close()
	if err != nil {
		return fail(3, "%s: %v", path, err)
	}
	b := report.BaselineFrom(rep, strings.TrimSpace(o.justification))
	var buf bytes.Buffer
	if err := report.WriteBaseline(&buf, b); err != nil {
		return fail(3, "%v", err)
	}
	if err := writeNew(o.out, buf.Bytes(), o.force); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fail(2, "%s exists; pass --force to overwrite it", o.out)
		}
		return fail(3, "%v", err)
	}
	fmt.Fprintf(stdout, "wrote %d accepted findings to %s\n", len(b.Accepted), o.out)
	missing := 0
	for _, e := range b.Accepted {
		if e.Justification == "" {
			missing++
		}
	}
	if missing > 0 {
		fmt.Fprintf(stdout, "%d entries have no justification yet: write in why each finding is accepted; --baseline refuses an entry without one\n", missing)
	}
	return report.ExitClean
}
