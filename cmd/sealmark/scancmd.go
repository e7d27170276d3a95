package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/scan"
	"github.com/sealmark/sealmark/packs"
)

// scanFlags are the flags of scan that only the front end reads; the
// layered ones (packs, fail-on, ...) apply to every server.
type scanFlags struct {
	list, asConfigured, quiet bool
	jobs                      int
	only                      repeated
	json, sarif, junit        string
	cacheDir, sarifCategory   string
	lockDir                   string // one tool lock per server (pincmd.go)
	pin                       bool
	html                      string
	text                      *textFlags
}

// scanLayered are scan's flags that go through config.Resolve for each server.
var scanLayered = sharedNames()

func newScanFlags(stderr io.Writer) (*flag.FlagSet, *scanFlags) {
	f := &scanFlags{}
	fs := flag.NewFlagSet("sealmark scan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: sealmark scan [flags] [CONFIG...]\n\n"+
			"Runs every server of MCP client configurations (Claude Desktop, VS Code, Cursor, Windsurf,\n"+
			"a plain {\"mcpServers\": ...} file), each contained as sealmark run would, several at once,\n"+
			"and prints one table; without CONFIG, the configurations found in their usual places.\n"+
			"An npx entry's package is fetched first, outside the sandbox (npm install, scripts off).\n"+
			"Exit 0 every server clean; 1 findings; 2 usage error; 3 a server could not run.\n\nflags:\n")
		fs.PrintDefaults()
	}
	fs.BoolVar(&f.list, "list-configs", false, "print each usual place of an MCP client configuration and whether it exists, and exit")
	fs.IntVar(&f.jobs, "jobs", runtime.NumCPU(), "run at most `N` servers at once")
	fs.Var(&f.only, "only", "scan only the server `NAME` (repeatable)")
	fs.BoolVar(&f.asConfigured, "as-configured", false, "keep the host paths in the servers' arguments and env (the runs are CUSTOM) instead of sandbox paths with the files they name staged (credentials files are withheld without it)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress lines on stderr")
	f.text = addTextFlags(fs)
	fs.StringVar(&f.json, "json", "", "write the merged JSON report (reports keyed by server name) to `PATH`")
	fs.StringVar(&f.sarif, "sarif", "", "write a SARIF 2.1.0 log with one run per server to `PATH`")
	addSARIFCategory(fs, &f.sarifCategory, true)
	fs.StringVar(&f.junit, "junit", "", "write JUnit XML with one suite per server to `PATH`")
	fs.StringVar(&f.html, "html", "", "write a self-contained HTML report (a row per server, drill-down to evidence) to `PATH`")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "install launchers' packages under `DIR` (default the user cache dir's sealmark)")
	fs.StringVar(&f.lockDir, "lock-dir", "", "compare each server's tools with its own lock in `DIR` (NAME.lock.json; see --pin)")
	fs.BoolVar(&f.pin, "pin", false, "write each server's tool lock into --lock-dir (replacing it, printing what changed) instead of testing the servers")
	addShared(fs) // each applies to every server
	return fs, f
}

func scanCmd(args []string, stdout, stderr io.Writer) int {
	fs, f := newScanFlags(stderr)
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return report.ExitClean
		}
		return report.ExitUsage
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sealmark scan: "+format+"\n", a...)
		return report.ExitUsage
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "sealmark scan: the working directory: %v\n", err)
		return report.ExitHarness
	}
	home, _ := os.UserHomeDir()
	places := scan.DefaultPlaces(home, cwd, os.Getenv("APPDATA"))
	if f.list {
		for _, p := range places {
			state, what := "not found", ""
			if st, err := os.Stat(p.Path); err == nil && st.Mode().IsRegular() {
				state = "found"
				if entries, err := scan.Load(p.Path); err != nil {
					what = "  (unreadable: " + err.Error() + ")"
				} else {
					what = fmt.Sprintf("  (%d servers)", len(entries))
				}
			}
			fmt.Fprintf(stdout, "%-22s %-9s %s%s\n", p.Client, state, p.Path, what)
		}
		return report.ExitClean
	}
	if err := checkSARIFCategory(fs, f.sarifCategory); err != nil {
		return usageErr("%v", err)
	}
	if f.jobs < 1 {
		return usageErr("--jobs: want 1 or more, got %d", f.jobs)
	}
	flags := map[string]string{}
	fs.Visit(func(fl *flag.Flag) {
		for _, name := range scanLayered {
			if fl.Name == name {
				flags[name] = fl.Value.String()
			}
		}
	})
	base, err := config.Resolve(nil, nil, "", os.Environ(), flags)
	if err == nil {
		// The flags' own checks, now rather than once per server: the
		// server each entry names stands in for the command.
		check := *base
		check.Command = "server"
		err = errors.Join(check.Check(), base.CheckPacks(packNamesOf(catalogue.All)), base.CheckLayers(engine.Layers))
	}
	if err != nil {
		return usageErr("%v", err)
	}
	failOn, err := packs.ParseFailOn(base.FailOn)
	if err != nil {
		return usageErr("--fail-on: %v", err)
	}
	if err := errors.Join(preflightOutputs(base.SandboxDir, base.Origins["sandbox.dir"], f.json, f.sarif, f.junit), checkHTMLPath(f.html)); err != nil {
		return usageErr("%v", err)
	}
	if err := checkLockDir(f.lockDir, f.pin); err != nil {
		return usageErr("%v", err)
	}
	if f.cacheDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return usageErr("--cache-dir: no user cache directory (%v); give one", err)
		}
		f.cacheDir = filepath.Join(dir, "sealmark")
	}
	if err := os.MkdirAll(f.cacheDir, 0o755); err != nil {
		return usageErr("--cache-dir: %v", err)
	}
	files := fs.Args()
	if len(files) == 0 {
		for _, p := range places {
			if st, err := os.Stat(p.Path); err == nil && st.Mode().IsRegular() {
				files = append(files, p.Path)
			}
		}
		if len(files) == 0 {
			return usageErr("no MCP client configuration in the usual places (sealmark scan --list-configs lists them); give a file")
		}
	}
	var entries []scan.Entry
	for _, path := range files {
		es, err := scan.Load(path)
		if err != nil {
			return usageErr("%v", err)
		}
		entries = append(entries, es...)
	}
	if entries, err = scan.Select(entries, f.only); err != nil {
		return usageErr("%v", err)
	}
	if len(entries) == 0 {
		return usageErr("the configurations list no servers: %s", strings.Join(files, ", "))
	}

	ctx, cancel, caught, stop := interruptible(stderr, "the servers and deleting the sandboxes")
	defer cancel(nil)
	defer stop()
	var done atomic.Int32
	opts := &scan.Options{
		Jobs: f.jobs, AsConfigured: f.asConfigured, Flags: flags, Env: os.Environ(), Cwd: cwd, Home: home,
		Version: version, FailOn: base.FailOn, Log: stderr, Fetcher: &scan.Fetcher{Dir: f.cacheDir, Env: os.Environ()},
		LockDir: f.lockDir, Pin: f.pin,
	}
	if !f.quiet {
		fmt.Fprintf(stderr, "sealmark scan: %s, %d at a time\n", scan.Servers(len(entries)), min(f.jobs, len(entries)))
		opts.Done = func(r scan.Result) {
			n := done.Add(1)
			d := r.Report.Finished.Sub(r.Report.Started).Round(100 * time.Millisecond)
			fmt.Fprintf(stderr, "sealmark scan: [%d/%d] %s done (%s, %s)\n", n, len(entries), r.Name, r.Launcher, d)
		}
		opts.Step = func(server, what string) {
			fmt.Fprintf(stderr, "sealmark scan: %s: %s\n", server, what)
		}
	}
	results := scan.Run(ctx, entries, opts)
	stop()
	if f.pin {
		return writePins(results, caught, stdout)
	}
	named := scan.Names(results)
	text := f.text.options(stdout, os.Environ())
	if text.Verbose {
		writeServerReports(stdout, named, text)
	}
	var sarifOpts report.SARIFOptions
	if f.sarif != "" {
		sarifOpts = scanSARIFOptions(entries, f.sarifCategory, cwd, stderr)
	}
	code := writeMerged(named, failOn, f.json, f.sarif, f.junit, sarifOpts, caught, stdout, stderr, "scan", text)
	if err := writeHTML(f.html, named, failOn); err != nil {
		fmt.Fprintf(stderr, "sealmark scan: --html: %v\n", err)
		return report.ExitHarness
	}
	return code
}

// writeMerged prints the summary table, writes the merged reports and
// returns the exit code over all servers (the signal's when interrupted);
// text colours the table (merge passes none).
func writeMerged(named []scan.Named, failOn packs.Severity, jsonPath, sarifPath, junitPath string, sarifOpts report.SARIFOptions, caught *atomic.Value, stdout, stderr io.Writer, cmd string, text report.TextOptions) int {
	if err := scan.WriteSummaryWith(stdout, named, failOn, text); err != nil {
		fmt.Fprintf(stderr, "sealmark %s: %v\n", cmd, err)
		return report.ExitHarness
	}
	for _, out := range []struct {
		flag, path string
		write      func(io.Writer) error
	}{
		{"--json", jsonPath, func(w io.Writer) error { return report.WriteJSONNamed(w, named) }},
		{"--sarif", sarifPath, func(w io.Writer) error { return report.WriteSARIFSet(w, named, sarifOpts) }},
		{"--junit", junitPath, func(w io.Writer) error { return report.WriteJUnitSet(w, named) }},
	} {
		if out.path == "" {
			continue
		}
		if err := writeWith(out.path, out.write); err != nil {
			fmt.Fprintf(stderr, "sealmark %s: %s: %v\n", cmd, out.flag, err)
			return report.ExitHarness
		}
	}
	if caught != nil {
		if sig, ok := caught.Load().(os.Signal); ok {
			return cleanup.ExitCode(sig)
		}
	}
	return scan.ExitCode(named, failOn)
}

// writeWith writes a file with write.
func writeWith(path string, write func(io.Writer) error) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(out); err != nil {
		out.Close()
		return fmt.Errorf("%s: %v", path, err)
	}
	return out.Close()
}

// preflightOutputs is preflight for scan and merge: the sandboxes'
// parent (from origin) and the report files' directories.
func preflightOutputs(sandboxDir string, origin config.Origin, jsonPath, sarifPath, junitPath string) error {
	return preflight(&config.Resolved{
		Settings: config.Settings{SandboxDir: sandboxDir, JSON: jsonPath, SARIF: sarifPath, JUnit: junitPath},
		Origins: map[string]config.Origin{
			"sandbox.dir": origin, "report.json": {From: "flag --json"}, "report.sarif": {From: "flag --sarif"}, "report.junit": {From: "flag --junit"},
		},
	})
}

func packNamesOf(ps []packs.Pack) []string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return names
}
