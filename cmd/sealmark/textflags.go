package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/scan"
)

// textFlags are the flags that shape the text report: --verbose and
// --color, on run and scan.
type textFlags struct {
	verbose bool
	color   colorMode
}

// colorMode is --color's value: auto, always or never.
type colorMode string

func (c *colorMode) String() string { return string(*c) }

func (c *colorMode) Set(v string) error {
	switch v {
	case "auto", "always", "never":
		*c = colorMode(v)
		return nil
	}
	return fmt.Errorf("want auto, always or never, got %q", v)
}

// addTextFlags defines --verbose and --color on fs.
func addTextFlags(fs *flag.FlagSet) *textFlags {
	f := &textFlags{color: "auto"}
	fs.BoolVar(&f.verbose, "verbose", false, "list every probe in the text report, passing ones with their notes (default: only what failed, warned or was inconclusive)")
	fs.Var(&f.color, "color", "colour FAIL, WARN and severities in the text report: `WHEN` auto (a terminal, unless NO_COLOR is set), always or never")
	return f
}

// options are the text report's options for output w under env (os.Environ's form).
func (f *textFlags) options(w io.Writer, env []string) report.TextOptions {
	return report.TextOptions{Verbose: f.verbose, Color: useColor(f.color, w, env)}
}

// useColor decides --color: always and never as said; auto colours only
// a terminal, and not when NO_COLOR has a value (https://no-color.org) or
// TERM is dumb. An explicit --color=always wins over NO_COLOR, as that
// convention allows.
func useColor(mode colorMode, w io.Writer, env []string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if envValue(env, "NO_COLOR") != "" || envValue(env, "TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}

// envValue is name's value in env, the last one when set twice; "" when unset.
func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if len(kv) > len(name) && kv[:len(name)] == name && kv[len(name)] == '=' {
			v = kv[len(name)+1:]
		}
	}
	return v
}

// writeServerReports writes each server's text report, as run writes it
// with opts, before scan's table: "report: NAME" and the report, a blank
// line after each.
func writeServerReports(w io.Writer, named []scan.Named, opts report.TextOptions) {
	for _, n := range named {
		fmt.Fprintf(w, "report: %s\n", report.CleanLine(n.Name))
		report.WriteTextWith(w, n.Report, opts)
		fmt.Fprintln(w)
	}
}
