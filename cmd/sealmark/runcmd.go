package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/environ"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/sandbox"
	"github.com/sealmark/sealmark/packs"
)

// repeated is a flag that may be given many times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

type runFlags struct {
	packs, jsonPath, sandboxDir, fixtureKind, into, failOn string
	keepSandbox, noSandbox, example, active, yes           bool
	env, keepEnv                                           repeated
	timeout, callTimeout                                   time.Duration
	maxMiB                                                 int
}

func parseRun(args []string, stderr io.Writer) (*runFlags, []string, error) {
	f := &runFlags{}
	fs := flag.NewFlagSet("sealmark run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: sealmark run [flags] -- COMMAND [ARGS...]\n       sealmark run --example\n       sealmark run --fixture fs|git --into DIR\n\nflags:\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&f.packs, "packs", "", "run only these packs (comma-separated)")
	fs.StringVar(&f.jsonPath, "json", "", "write the JSON report to `PATH`")
	fs.StringVar(&f.sandboxDir, "sandbox-dir", "", "make the sandbox under `DIR` (default the OS temp dir)")
	fs.BoolVar(&f.keepSandbox, "keep-sandbox", false, "keep the sandbox after the run and print its path")
	fs.BoolVar(&f.noSandbox, "no-sandbox", false, "run the server without a sandbox, with your environment (the run is CUSTOM)")
	fs.Var(&f.env, "env", "give the server `NAME=VALUE` (repeatable; placeholders expand)")
	fs.Var(&f.keepEnv, "keep-env", "copy the variable `NAME` from your environment to the server (repeatable)")
	fs.StringVar(&f.fixtureKind, "fixture", "", "write the sandbox layout of `KIND` (fs or git) into --into and exit")
	fs.StringVar(&f.into, "into", "", "directory for --fixture")
	fs.StringVar(&f.failOn, "fail-on", "high", "lowest `SEVERITY` that makes the exit code 1 (low, medium, high, critical)")
	fs.BoolVar(&f.example, "example", false, "run against the bundled example server (a notes server with a flaw)")
	fs.BoolVar(&f.active, "active", false, "let probes that change state run (asks for confirmation unless --yes)")
	fs.BoolVar(&f.yes, "yes", false, "confirm --active without asking")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "bound on each server start up to its tool list")
	fs.DurationVar(&f.callTimeout, "call-timeout", 10*time.Second, "bound on each request")
	fs.IntVar(&f.maxMiB, "max-mib", 1024, "sandbox size limit in MiB (sandbox.max_mib)")
	if err := fs.Parse(args); err != nil {
		return nil, nil, err
	}
	return f, fs.Args(), nil
}

func runCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, rest, err := parseRun(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sealmark run: "+format+"\n", a...)
		return 2
	}
	if f.fixtureKind != "" || f.into != "" {
		return writeFixture(f, stdout, stderr)
	}
	cfg := engine.Config{
		KeepEnv: f.keepEnv, NoSandbox: f.noSandbox, SandboxDir: f.sandboxDir, KeepSandbox: f.keepSandbox,
		MaxMiB: f.maxMiB, Active: f.active, StartTimeout: f.timeout, CallTimeout: f.callTimeout,
		Log: stderr, Version: version,
	}
	sev, err := packs.ParseSeverity(f.failOn)
	if err != nil {
		return usageErr("--fail-on: %v", err)
	}
	cfg.FailOn = &sev
	if f.packs != "" {
		cfg.Packs = strings.Split(f.packs, ",")
	}
	for _, kv := range f.env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return usageErr("--env %q: want NAME=VALUE", kv)
		}
		cfg.Env = append(cfg.Env, environ.KV{Name: name, Value: value})
	}
	switch {
	case f.example && len(rest) > 0:
		return usageErr("--example runs the bundled server; give no command with it")
	case f.example:
		self, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "sealmark run: finding the sealmark binary for --example: %v\n", err)
			return 3
		}
		cfg.Command, cfg.Shown, cfg.Args = self, "sealmark", []string{fixture.Verb, "-flaws=echo-canary", "-name=example-notes"}
	case len(rest) == 0:
		return usageErr("no server command: sealmark run [flags] -- COMMAND [ARGS...] (or --example)")
	default:
		cfg.Command, cfg.Args = rest[0], rest[1:]
	}
	if f.active && !f.yes {
		if !confirmActive(stdin, stderr) {
			return usageErr("--active needs confirmation: answer y on a terminal, or add --yes")
		}
	}
	e, err := engine.New(cfg)
	if err != nil {
		return usageErr("%v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var caught atomic.Value
	stop := cleanup.OnSignal(func(sig os.Signal) {
		caught.Store(sig)
		fmt.Fprintf(stderr, "sealmark: %v: stopping the server and deleting the sandbox (again to skip the grace period)\n", sig)
		cancel()
	})
	defer stop()
	rep := e.Run(ctx, progress(stderr))
	stop()
	report.WriteText(stdout, rep)
	if f.jsonPath != "" {
		if err := writeJSON(f.jsonPath, rep); err != nil {
			fmt.Fprintf(stderr, "sealmark run: %v\n", err)
			return 3
		}
	}
	if sig, ok := caught.Load().(os.Signal); ok {
		return cleanup.ExitCode(sig)
	}
	return report.ExitCode(rep, sev)
}

func writeJSON(path string, rep *report.Report) error {
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--json: %v", err)
	}
	if err := report.WriteJSON(out, rep); err != nil {
		out.Close()
		return fmt.Errorf("--json %s: %v", path, err)
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

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progress prints pack and probe lines on a terminal; quiet otherwise.
func progress(stderr io.Writer) engine.Hooks {
	f, ok := stderr.(*os.File)
	if !ok || !isTerminal(f) {
		return engine.Hooks{}
	}
	return engine.Hooks{
		Pack: func(name string) { fmt.Fprintf(stderr, "sealmark: pack %s\n", name) },
		Probe: func(pack string, r report.Probe) {
			fmt.Fprintf(stderr, "  %-28s %s (%dms)\n", r.Name, r.Verdict, r.Millis)
		},
	}
}

func writeFixture(f *runFlags, stdout, stderr io.Writer) int {
	if f.fixtureKind == "" || f.into == "" {
		fmt.Fprintln(stderr, "sealmark run: --fixture KIND and --into DIR go together")
		return 2
	}
	if f.fixtureKind != "fs" && f.fixtureKind != "git" {
		fmt.Fprintf(stderr, "sealmark run: --fixture %q: want fs or git\n", f.fixtureKind)
		return 2
	}
	sb, err := sandbox.WriteFixture(f.into, f.fixtureKind)
	if err != nil {
		fmt.Fprintf(stderr, "sealmark run: --fixture: %v\n", err)
		return 3
	}
	fmt.Fprintf(stdout, "wrote the %s fixture layout to %s (see %s/SEALMARK-FIXTURE.txt); point your server at %s\n", f.fixtureKind, sb.Top, sb.Top, sb.Root)
	return 0
}
