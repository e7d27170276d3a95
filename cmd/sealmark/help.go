package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/report"
)

// command is one subcommand as help lists it.
type command struct {
	name, summary string
	// flags builds the command's flag set with its usage going to w; nil
	// for a command without flags.
	flags func(w io.Writer) *flag.FlagSet
}

// onlyFlags adapts a command's flag-set builder, which also returns the
// command's options, to what help needs: the flag set alone.
func onlyFlags[T any](build func(io.Writer) (*flag.FlagSet, T)) func(io.Writer) *flag.FlagSet {
	return func(w io.Writer) *flag.FlagSet {
		fs, _ := build(w)
		return fs
	}
}

// commands are the subcommands, in the order help lists them.
var commands = []command{
	{"run", "start an MCP server in a sandbox and run the packs against it", onlyFlags(newRunFlags)},
	{"scan", "run every server of MCP client configurations (Claude Desktop, VS Code, Cursor, Windsurf) in parallel", onlyFlags(newScanFlags)},
	{"merge", "merge per-server JSON reports (a CI matrix of scans) into one table, JSON, SARIF and JUnit", onlyFlags(mergeFlags)},
	{"list", "list every probe: pack, id, name, severity, CWE and rule (--json for a JSON array)", onlyFlags(listFlags)},
	{"init", "write a commented sealmark.yaml for a server command", onlyFlags(initFlags)},
	{"doctor", "check the settings, the command, the environment and this machine; starts nothing", onlyFlags(doctorFlags)},
	{"diff", "compare two JSON reports: new, fixed and changed findings (exit 1 on a regression)", onlyFlags(diffFlags)},
	{"baseline", "baseline write: accept a JSON report's findings in a baseline file", onlyFlags(baselineFlags)},
	{"pin", "write a lock of the server's tools (descriptions, schema and annotation hashes) that later runs compare with", onlyFlags(newPinFlags)},
	{"version", "print the version", nil},
	{"help", "this text; help COMMAND for a command's flags, help config for the sealmark.yaml keys", nil},
}

// writeUsage writes the top-level help: the commands, each with its flags,
// and the exit codes.
func writeUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString("usage: sealmark <command> [flags]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.summary)
		if c.flags == nil {
			continue
		}
		var names []string
		c.flags(io.Discard).VisitAll(func(fl *flag.Flag) { names = append(names, "--"+fl.Name) })
		for _, l := range wrap(strings.Join(names, " "), 66) {
			fmt.Fprintf(&b, "  %-9s   %s\n", "", l)
		}
	}
	b.WriteString("\nRun \"sealmark help COMMAND\" (or \"sealmark COMMAND -h\") for a command's flags, and\n" +
		"\"sealmark help config\" for the sealmark.yaml keys with their flags and SEALMARK_* variables.\n\n" +
		"Exit codes: 0 no finding at or above --fail-on; 1 findings (or a stale baseline entry);\n" +
		"2 usage or configuration error; 3 the harness could not run (the server did not start, ...);\n" +
		"128+n interrupted by signal n.\n")
	io.WriteString(w, b.String())
}

// wrap breaks text into lines of at most width bytes at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// helpCmd prints the top-level help, a command's help or the config keys,
// on stdout.
func helpCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		writeUsage(stdout)
		return report.ExitClean
	}
	if len(args) > 1 {
		fmt.Fprintf(stderr, "sealmark help: want one topic, got %d: %s\n", len(args), strings.Join(args, " "))
		return report.ExitUsage
	}
	if args[0] == "config" {
		if err := config.WriteReference(stdout); err != nil {
			fmt.Fprintf(stderr, "sealmark help: %v\n", err)
			return report.ExitHarness
		}
		return report.ExitClean
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		if c.flags == nil {
			fmt.Fprintf(stdout, "sealmark %s: %s\n", c.name, c.summary)
			return report.ExitClean
		}
		c.flags(stdout).Usage()
		return report.ExitClean
	}
	var topics []string
	for _, c := range commands {
		topics = append(topics, c.name)
	}
	fmt.Fprintf(stderr, "sealmark help: unknown topic %q: want config or one of %s\n", args[0], strings.Join(topics, ", "))
	return report.ExitUsage
}
