// Command sealmark tests an MCP server by running it in a disposable sandbox
// and judging it by what it did.
//
//	sealmark run -- node {cwd}/dist/index.js {sandbox}
//	sealmark run --packs core --json report.json -- ./my-server --stdio
//	sealmark run --example
//	sealmark scan --jobs 2 ~/.cursor/mcp.json
//	sealmark run --fixture fs --into ./sealmark-fixtures
//	sealmark pin -- ./my-server --stdio   # then commit sealmark.lock.json
//	sealmark help [COMMAND | config]
//
// Exit codes: 0 no finding at or above --fail-on; 1 findings; 2 usage or
// configuration error; 3 the harness could not run (the server did not
// start, ...); 128+n interrupted by signal n.
package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/example"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
	buildversion "github.com/sealmark/sealmark/internal/version"
)

// version is the harness version every report names: set at build time
// with -ldflags "-X main.version=...", else read from the build information
// (the module's version, or the commit of a build from a checkout).
var version = ""

func init() {
	if version == "" {
		version = buildversion.String()
	}
}

func main() {
	contain.Dispatch() // the containment shim, before anything else
	smbin.Dispatch()
	example.Dispatch()
	// The MCP client library logs transport hiccups of hostile servers
	// through slog; the report says what matters.
	slog.SetDefault(slog.New(slog.DiscardHandler))
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole CLI; main only exits with its code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		writeUsage(stderr)
		return report.ExitUsage
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], stdin, stdout, stderr)
	case "scan":
		return scanCmd(args[1:], stdout, stderr)
	case "merge":
		return mergeCmd(args[1:], stdout, stderr)
	case "list":
		return listCmd(args[1:], stdout, stderr)
	case "diff":
		return diffCmd(args[1:], stdout, stderr)
	case "init":
		return initCmd(args[1:], stdin, stdout, stderr)
	case "doctor":
		return doctorCmd(args[1:], stdout, stderr)
	case "baseline":
		return baselineCmd(args[1:], stdout, stderr)
	case "pin":
		return pinCmd(args[1:], stdout, stderr)
	case "version", "--version":
		return versionCmd(args[1:], stdout, stderr)
	case "help":
		return helpCmd(args[1:], stdout, stderr)
	case "-h", "--help":
		writeUsage(stdout)
		return report.ExitClean
	}
	fmt.Fprintf(stderr, "sealmark: unknown command %q\n", args[0])
	writeUsage(stderr)
	return report.ExitUsage
}
