package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/example"
	"github.com/sealmark/sealmark/internal/pin"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/sandbox"
)

// repeated is a flag that may be given many times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// runFlags are the flags of run that only the front end reads; every other
// flag goes through the config layers (internal/config).
type runFlags struct {
	configPath, fixtureKind, into        string
	example, active, yes, explain, quiet bool
	sarifCategory                        string
	text                                 *textFlags
}

func newRunFlags(stderr io.Writer) (*flag.FlagSet, *runFlags) {
	f := &runFlags{}
	fs := flag.NewFlagSet("sealmark run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: sealmark run [flags] -- COMMAND [ARGS...]\n       sealmark run --example\n       sealmark run --fixture fs|git --into DIR\n\nflags:\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&f.configPath, "config", "", "read settings from `FILE` (default $SEALMARK_CONFIG, else ./sealmark.yaml when present)")
	fs.BoolVar(&f.explain, "explain-config", false, "print the resolved settings, with where each came from, and exit")
	fs.StringVar(&f.fixtureKind, "fixture", "", "write the sandbox layout of `KIND` (fs or git) into --into and exit")
	fs.StringVar(&f.into, "into", "", "directory for --fixture")
	fs.BoolVar(&f.example, "example", false, "run against the bundled example server (a notes server with a flaw)")
	fs.BoolVar(&f.active, "active", false, "let probes that change state run (asks for confirmation unless --yes)")
	fs.BoolVar(&f.yes, "yes", false, "confirm --active without asking")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress lines on stderr")
	f.text = addTextFlags(fs)
	// Layered settings: defaults → sealmark.yaml → SEALMARK_* → these flags.
	addShared(fs)
	fs.String("probes", "", "run only the probes these `GLOBS` match (comma-separated; over pack/name, name or ID: core/secret-*,FS-READ-*)")
	fs.String("skip-probes", "", "skip the probes these `GLOBS` match (comma-separated; over pack/name, name or ID)")
	fs.String("json", "", "write the JSON report to `PATH` (- for standard output; the text report then goes to standard error)")
	fs.String("sarif", "", "write a SARIF 2.1.0 log to `PATH` (for code scanning; - for standard output)")
	addSARIFCategory(fs, &f.sarifCategory, false)
	fs.String("junit", "", "write JUnit XML to `PATH` (one testcase per probe; - for standard output)")
	fs.Bool("keep-sandbox", false, "keep the sandbox after the run and print its path")
	fs.Bool("fresh-starts", false, "start the server afresh for every pack, even one that could run on the start an earlier pack left running (same verdicts, slower)")
	fs.Int("jobs", 0, "run at most `N` packs at once, each past the first start on a server and sandbox of its own (0: one per CPU; 1: one after another)")
	fs.Bool("no-sandbox", false, "run the server without a sandbox, with your environment (the run is CUSTOM)")
	fs.Var(&repeated{}, "env", "give the server `NAME=VALUE` (repeatable; placeholders expand)")
	fs.Var(&repeated{}, "keep-env", "copy the variable `NAME` from your environment to the server (repeatable)")
	fs.Var(&repeated{}, "service", "let the server reach the host `ENDPOINT` tcp:127.0.0.1:PORT or unix:/PATH (repeatable; sandbox.services)")
	fs.String("url", "", "an HTTP server's MCP endpoint, a loopback `URL` (placeholders expand: http://127.0.0.1:{port}/mcp)")
	fs.Var(&repeated{}, "header", "an HTTP header `Name: value` for --url (repeatable)")
	fs.String("start", "", "a `COMMAND` line that starts the HTTP server for --url, in the sandbox's throwaway directory (no shell)")
	fs.String("baseline", "", "a JSON `FILE` of accepted findings (probe id, fingerprint, justification); a stale entry fails the run")
	fs.String("lock", "", "compare the tools with the lock `FILE` sealmark pin wrote (default "+pin.DefaultFile+" beside sealmark.yaml, when present)")
	return fs, f
}

// setFlags collects the layered flags the user gave, as config.Resolve wants them.
func setFlags(fs *flag.FlagSet, rest []string) map[string]string {
	set := map[string]string{}
	fs.Visit(func(fl *flag.Flag) {
		if sarifFrontEnd[fl.Name] {
			return
		}
		switch v := fl.Value.(type) {
		case *repeated:
			if fl.Name == "keep-env" || fl.Name == "service" {
				set[fl.Name] = strings.Join(*v, ",")
				break
			}
			// One JSON array, so that an entry holding a line break stays
			// one entry (and a --header that would inject a second header
			// is refused, not split).
			b, _ := json.Marshal([]string(*v))
			set[fl.Name] = string(b)
		default:
			set[fl.Name] = fl.Value.String()
		}
	})
	if len(rest) > 0 {
		b, _ := json.Marshal(rest)
		set["command"] = string(b)
	}
	return set
}

func runCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, f := newRunFlags(stderr)
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return report.ExitClean
		}
		return report.ExitUsage
	}
	rest := fs.Args()
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sealmark run: "+format+"\n", a...)
		return report.ExitUsage
	}
	if f.fixtureKind != "" || f.into != "" {
		return writeFixture(f, stdout, stderr)
	}
	if err := checkSARIFCategory(fs, f.sarifCategory); err != nil {
		return usageErr("%v", err)
	}
	if f.example && len(rest) > 0 {
		return usageErr("--example runs the bundled server; give no command with it")
	}
	if f.example {
		self, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "sealmark run: finding the sealmark binary for --example: %v\n", err)
			return report.ExitHarness
		}
		rest = []string{self, example.Verb}
	}
	res, err := resolve(f, fs, rest)
	if err != nil {
		return usageErr("%v", err)
	}
	if f.explain {
		if err := res.Explain(stdout); err != nil {
			fmt.Fprintf(stderr, "sealmark run: %v\n", err)
			return report.ExitHarness
		}
		return report.ExitClean
	}
	if err := preflight(res); err != nil {
		return usageErr("%v", err)
	}
	if res.Lock == "" {
		res.Lock = engine.DefaultLock(configFile(f))
	}
	cfg, err := engineConfig(res, stderr)
	if err != nil {
		return usageErr("%v", err)
	}
	if f.example {
		cfg.Shown = "sealmark"
	}
	cfg.Active = f.active
	if f.active && !f.yes && !confirmActive(stdin, stderr) {
		return usageErr("--active needs confirmation: answer y on a terminal, or add --yes")
	}
	e, err := engine.New(cfg)
	if err != nil {
		return usageErr("%v", err)
	}
	ctx, cancel, caught, stop := interruptible(stderr, "the server and deleting the sandbox")
	defer cancel(nil)
	defer stop()
	errFile, isFile := stderr.(*os.File)
	progress := newProgress(stderr, isFile && isTerminal(errFile), f.quiet, e.Planned)
	rep := e.Run(ctx, progress.hooks())
	progress.close()
	stop()
	text := stdout
	if res.JSON == "-" || res.SARIF == "-" || res.JUnit == "-" {
		text = stderr // standard output carries the machine-readable report
	}
	report.WriteTextWith(text, rep, f.text.options(text, os.Environ()))
	for _, out := range []struct {
		flag, path string
		write      func(io.Writer, *report.Report) error
	}{
		{"--json", res.JSON, report.WriteJSON},
		{"--sarif", res.SARIF, func(w io.Writer, r *report.Report) error {
			return report.WriteSARIF(w, r, runSARIFOptions(configFile(f), res, f.sarifCategory, stderr))
		}},
		{"--junit", res.JUnit, report.WriteJUnit},
	} {
		if out.path == "" {
			continue
		}
		if out.path == "-" {
			if err := out.write(stdout, rep); err != nil {
				fmt.Fprintf(stderr, "sealmark run: %s -: %v\n", out.flag, err)
				return report.ExitHarness
			}
			continue
		}
		if err := writeFile(out.path, rep, out.write); err != nil {
			fmt.Fprintf(stderr, "sealmark run: %s: %v\n", out.flag, err)
			return report.ExitHarness
		}
	}
	if sig, ok := caught.Load().(os.Signal); ok {
		return cleanup.ExitCode(sig)
	}
	return report.ExitCode(rep, *cfg.FailOn)
}

// resolve layers the settings: defaults, the config file, SEALMARK_*, flags.
func resolve(f *runFlags, fs *flag.FlagSet, rest []string) (*config.Resolved, error) {
	env := os.Environ()
	path := configFile(f)
	var file *config.Settings
	var lines map[string]int
	if path != "" {
		var err error
		if file, lines, err = config.Load(path); err != nil {
			return nil, err
		}
	}
	res, err := config.Resolve(file, lines, path, env, setFlags(fs, rest))
	if err != nil {
		return nil, err
	}
	if err := engine.CheckSettings(res, catalogue.All); err != nil {
		return nil, err
	}
	return res, nil
}

// configFile is the config file the run reads: --config, else
// $SEALMARK_CONFIG, else ./sealmark.yaml when present, else "".
func configFile(f *runFlags) string {
	path := config.ConfigPath(os.Environ(), f.configPath)
	if path == "" {
		if _, err := os.Stat("sealmark.yaml"); err == nil {
			path = "sealmark.yaml"
		}
	}
	return path
}

// engineConfig turns resolved settings into the engine's Config, the same
// way sealmarktest does (engine.FromSettings, and the catalogue's packs and
// the user's own).
func engineConfig(res *config.Resolved, log io.Writer) (engine.Config, error) {
	cfg, err := engine.FromSettings(res.Settings)
	if err == nil {
		cfg.Own, err = catalogue.Own(res.Settings, "")
	}
	cfg.Log, cfg.Version, cfg.Catalog = log, version, catalogue.All
	cfg.HintsAt = res.At
	return cfg, err
}

// preflight checks, before anything starts, the directory of each report
// file (the sandbox's parent is config.Resolved.Check's). A mistake there
// is a usage error found now, not a harness error after the whole run.
func preflight(res *config.Resolved) error {
	var errs []error
	var dashes []string
	for _, out := range []struct{ key, path string }{{"report.json", res.JSON}, {"report.sarif", res.SARIF}, {"report.junit", res.JUnit}} {
		if out.path == "-" {
			dashes = append(dashes, res.At(out.key))
			continue
		}
		if out.path == "" {
			continue
		}
		dir := filepath.Dir(out.path)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			errs = append(errs, fmt.Errorf("%s: the directory %q does not exist", res.At(out.key), dir))
		} else if st, err := os.Stat(out.path); err == nil && st.IsDir() {
			errs = append(errs, fmt.Errorf("%s: %q is a directory", res.At(out.key), out.path))
		}
	}
	if len(dashes) > 1 {
		errs = append(errs, fmt.Errorf("%s: only one report can go to standard output (-)", strings.Join(dashes, " and ")))
	}
	return errors.Join(errs...)
}

// writeFile writes one report format to path.
func writeFile(path string, rep *report.Report, write func(io.Writer, *report.Report) error) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(out, rep); err != nil {
		out.Close()
		return fmt.Errorf("%s: %v", path, err)
	}
	return out.Close()
}

// confirmActive asks on a terminal; without one it refuses.
func confirmActive(stdin io.Reader, stderr io.Writer) bool {
	if f, ok := stdin.(*os.File); !ok || !isTerminal(f) {
		return false
	}
	fmt.Fprint(stderr, "--active: this server may act on real external services it is wired to. Run the active probes? [y/N] ")
	var answer string
	fmt.Fscanln(stdin, &answer)
	return strings.EqualFold(answer, "y") || strings.EqualFold(answer, "yes")
}

func writeFixture(f *runFlags, stdout, stderr io.Writer) int {
	if f.fixtureKind == "" || f.into == "" {
		fmt.Fprintln(stderr, "sealmark run: --fixture KIND and --into DIR go together")
		return report.ExitUsage
	}
	if f.fixtureKind != "fs" && f.fixtureKind != "git" {
		fmt.Fprintf(stderr, "sealmark run: --fixture %q: want fs or git\n", f.fixtureKind)
		return report.ExitUsage
	}
	sb, err := sandbox.WriteFixture(f.into, f.fixtureKind)
	if err != nil {
		fmt.Fprintf(stderr, "sealmark run: --fixture: %v\n", err)
		return report.ExitHarness
	}
	fmt.Fprintf(stdout, "wrote the %s fixture layout to %s (see %s/SEALMARK-FIXTURE.txt); point your server at %s\n", f.fixtureKind, sb.Top, sb.Top, sb.Root)
	return report.ExitClean
}
