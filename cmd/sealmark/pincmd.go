package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/pin"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/scan"
)

// pinFlags are the flags of pin that only the front end reads.
type pinFlags struct {
	configPath    string
	update, quiet bool
}

// pinLayered are run's layered flags that say how to start the server;
// pin takes them with run's meaning.
var pinLayered = []string{"env", "keep-env", "service", "url", "header", "start", "no-sandbox", "sandbox-dir", "max-mib", "layers-off", "timeout", "call-timeout"}

func newPinFlags(stderr io.Writer) (*flag.FlagSet, *pinFlags) {
	f := &pinFlags{}
	runSet, _ := newRunFlags(io.Discard)
	fs := flag.NewFlagSet("sealmark pin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: sealmark pin [flags] [-- COMMAND [ARGS...]]\n\n"+
			"Starts the server contained as sealmark run would (from sealmark.yaml when no command is\n"+
			"given), reads its tool list and writes a lock of every tool: its name, its description\n"+
			"verbatim, and SHA-256 digests of its input schema and annotations, with the server's name\n"+
			"and version. Commit the lock next to sealmark.yaml: every later run compares the tools\n"+
			"with it (core/tool-pin), so a tool added, removed or changed since is a finding.\n"+
			"--update rewrites an existing lock, accepting the change, and prints what changed.\n"+
			"Exit 0 written, 2 usage error or the lock exists without --update, 3 the server's tool\n"+
			"list could not be read.\n\nflags:\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&f.configPath, "config", "", "read settings from `FILE` (default $SEALMARK_CONFIG, else ./sealmark.yaml when present)")
	fs.String("lock", "", "write the lock to `FILE` (default "+pin.DefaultFile+" beside sealmark.yaml, else in the working directory)")
	fs.BoolVar(&f.update, "update", false, "rewrite an existing lock, accepting the change, and print what changed")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress line on stderr")
	for _, name := range pinLayered {
		fl := runSet.Lookup(name)
		fs.Var(fl.Value, fl.Name, fl.Usage)
	}
	return fs, f
}

// pinCmd runs sealmark pin.
func pinCmd(args []string, stdout, stderr io.Writer) int {
	fs, f := newPinFlags(stderr)
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return report.ExitClean
		}
		return report.ExitUsage
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "sealmark pin: "+format+"\n", a...)
		return report.ExitUsage
	}
	cfgPath := configFile(&runFlags{configPath: f.configPath})
	res, err := resolvePin(fs, cfgPath)
	if err != nil {
		return usageErr("%v", err)
	}
	path := res.Lock
	if path == "" {
		path = pin.Beside(cfgPath)
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return usageErr("%s: the directory %q does not exist", res.At("lock"), filepath.Dir(path))
	}
	var old *pin.Lock
	if _, err := os.Stat(path); err == nil {
		if !f.update {
			return usageErr("%s exists; pass --update to accept the server's tools as they are now (what changed is printed)", path)
		}
		if old, err = pin.Read(path); err != nil {
			fmt.Fprintf(stderr, "sealmark pin: warning: the lock is replaced whole: %v\n", err)
		}
	}
	res.Lock = "" // the lock is written here, not compared with
	cfg, err := engineConfig(res, stderr)
	if err != nil {
		return usageErr("%v", err)
	}
	// Only the tool list is needed: core's start reads it, and tool-pin,
	// without a lock, runs nothing against the server.
	cfg.Packs, cfg.OnlyProbes, cfg.SkipProbes = []string{"core"}, []string{"core/tool-pin"}, nil
	cfg.Own, cfg.Baseline, cfg.Lock = nil, nil, nil
	e, err := engine.New(cfg)
	if err != nil {
		return usageErr("%v", err)
	}
	ctx, cancel, caught, stop := interruptible(stderr, "the server and deleting the sandbox")
	defer cancel(nil)
	defer stop()
	if !f.quiet {
		// Not run's progress lines: their probe counts and the lockless
		// tool-pin's not-applicable would say nothing about pinning.
		fmt.Fprintln(stderr, "sealmark pin: starting the server, contained, for its tool list")
	}
	rep := e.Run(ctx, engine.Hooks{})
	stop()
	if sig, ok := caught.Load().(os.Signal); ok {
		fmt.Fprintf(stderr, "sealmark pin: interrupted; %s left as it was\n", path)
		return cleanup.ExitCode(sig)
	}
	if rep.HarnessError != "" {
		fmt.Fprintf(stderr, "sealmark pin: the server's tool list could not be read: %s; no lock written\n", rep.HarnessError)
		return report.ExitHarness
	}
	lock, err := e.Lock()
	if err != nil {
		fmt.Fprintf(stderr, "sealmark pin: %v; no lock written\n", err)
		return report.ExitHarness
	}
	if old != nil {
		changes := pin.Compare(*old, lock)
		if len(changes) == 0 {
			fmt.Fprintf(stdout, "no tool changed since %s\n", path)
		}
		for _, c := range changes {
			fmt.Fprintf(stdout, "%s\n", c.Summary())
			for _, line := range c.Diff {
				fmt.Fprintf(stdout, "    %s\n", line)
			}
		}
	}
	if err := lock.Write(path); err != nil {
		fmt.Fprintf(stderr, "sealmark pin: %v\n", err)
		return report.ExitHarness
	}
	fmt.Fprintf(stdout, "pinned %d tools of %s %s to %s\n", len(lock.Tools), orUnnamed(lock.Server.Name), lock.Server.Version, path)
	return report.ExitClean
}

// resolvePin layers pin's settings as run does: defaults, the config
// file, SEALMARK_*, the flags.
func resolvePin(fs *flag.FlagSet, cfgPath string) (*config.Resolved, error) {
	var file *config.Settings
	var lines map[string]int
	if cfgPath != "" {
		var err error
		if file, lines, err = config.Load(cfgPath); err != nil {
			return nil, err
		}
	}
	set := setFlags(fs, fs.Args())
	delete(set, "update")
	res, err := config.Resolve(file, lines, cfgPath, os.Environ(), set)
	if err != nil {
		return nil, err
	}
	if err := engine.CheckSettings(res, catalogue.All); err != nil {
		return nil, err
	}
	return res, nil
}

func orUnnamed(name string) string {
	if name == "" {
		return "the unnamed server"
	}
	return name
}

// checkLockDir checks scan's --lock-dir and --pin.
func checkLockDir(dir string, write bool) error {
	if dir == "" {
		if write {
			return errors.New("--pin writes into --lock-dir; give one")
		}
		return nil
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("--lock-dir: %q is not a directory", dir)
	}
	return nil
}

// writePins prints what scan --pin wrote for each server, with what
// changed, and returns 0 when every lock was written, 3 when one was not
// (the signal's code when interrupted).
func writePins(results []scan.Result, caught *atomic.Value, stdout io.Writer) int {
	code := report.ExitClean
	for _, r := range results {
		p := r.Pinned
		switch {
		case p == nil:
			fmt.Fprintf(stdout, "%s: no lock written: %s\n", r.Name, r.Report.HarnessError)
			code = report.ExitHarness
			continue
		case p.Err != "":
			fmt.Fprintf(stdout, "%s: no lock written: %s\n", r.Name, p.Err)
			code = report.ExitHarness
			continue
		}
		what := "no tool changed"
		if p.New {
			what = "new lock"
		} else if len(p.Changes) > 0 {
			what = fmt.Sprintf("%d changed", len(p.Changes))
		}
		fmt.Fprintf(stdout, "%s: pinned %d tools to %s (%s)\n", r.Name, p.Tools, p.Path, what)
		for _, c := range p.Changes {
			fmt.Fprintf(stdout, "  %s\n", c.Summary())
			for _, line := range c.Diff {
				fmt.Fprintf(stdout, "      %s\n", line)
			}
		}
	}
	if sig, ok := caught.Load().(os.Signal); ok {
		return cleanup.ExitCode(sig)
	}
	return code
}
