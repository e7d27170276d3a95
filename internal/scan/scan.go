// Package scan runs every server of an MCP client configuration (Claude
// Desktop, VS Code, Cursor, Windsurf, a plain {"mcpServers": ...} file)
// through the engine, several at a time, and merges the reports.
//
//	entries, err := scan.Load("claude_desktop_config.json") // errors name the file and the entry
//	if err != nil { ... }
//	results := scan.Run(ctx, entries, &scan.Options{Jobs: 2, Cwd: cwd, Env: os.Environ(),
//		Fetcher: &scan.Fetcher{Dir: cacheDir, Env: os.Environ()}})
//	scan.WriteSummary(os.Stdout, scan.Names(results), packs.High)
//	os.Exit(scan.ExitCode(scan.Names(results), packs.High))
//
// Each entry becomes one run of the engine with the settings sealmark run
// would resolve for it (the entry as the config file layer, then SEALMARK_*
// and the scan's flags). A launcher's package (npx -y PKG) is fetched
// before the contained start, outside the sandbox, so the server itself
// runs with no network. Host paths in an entry's arguments and env become
// sandbox paths (a directory the sandbox root, the server's root; never a
// bare word), and the files they name are staged read-only, credentials
// files withheld, each noted in the report (docs/paths.md). An entry that
// cannot be made ready is a report with a harness error, never the end of
// the scan.
package scan

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/internal/report"
)

// Options are a scan's settings.
type Options struct {
	// Jobs bounds how many servers run at once; default 1.
	Jobs int
	// AsConfigured keeps the host paths of the entries' arguments and env
	// (the runs are CUSTOM) instead of replacing them with sandbox paths.
	AsConfigured bool
	// Flags are the scan's layered flags as config.Resolve takes them
	// (packs, fail-on, timeout, ...), applied to every entry.
	Flags map[string]string
	// Env is the caller's environment, for the SEALMARK_* layer.
	Env []string
	// Cwd resolves relative paths in the entries and is VS Code's
	// ${workspaceFolder}; Home is ${userHome}.
	Cwd, Home string
	// Version goes into the reports; FailOn too, for the reports of
	// servers that could not run ("" is report.DefaultFailOn).
	Version, FailOn string
	// Log receives the runs' warnings, each line prefixed with the
	// server's name; default io.Discard.
	Log io.Writer
	// Fetcher fetches the launchers' packages.
	Fetcher *Fetcher
	// Done is called as each server finishes (from its own goroutine).
	Done func(Result)
	// Step, when set, is called as a server reaches each stage (from its
	// own goroutine): "fetching PKG", then "pack N/M NAME".
	Step func(server, what string)
	// LockDir holds one tool lock per server (pin.FileFor: the server's
	// name and .lock.json): core/tool-pin compares each server's tools
	// with its own; a server without a file there is not applicable.
	LockDir string
	// Pin writes each server's lock into LockDir instead (replacing the
	// file): its run starts the server for the tool list alone, and
	// Result.Pinned says what was written and what changed.
	Pin bool
}

// Result is one server's run.
type Result struct {
	Name     string
	Launcher string // Direct, NPX, ..., or "http"/"sse" for a URL
	Report   *report.Report
	// Pinned is what a pinning scan (Options.Pin) wrote; nil otherwise.
	Pinned *Pinned
}

// Select keeps the entries named by only (all when empty) and makes the
// names unique: a name repeated across files gets -2, -3, ...
func Select(entries []Entry, only []string) ([]Entry, error) {
	seen := map[string]int{}
	var out []Entry
	for _, e := range entries {
		seen[e.Name]++
		if n := seen[e.Name]; n > 1 {
			e.Name = fmt.Sprintf("%s-%d", e.Name, n)
		}
		out = append(out, e)
	}
	if len(only) == 0 {
		return out, nil
	}
	var kept []Entry
	var unknown []string
	for _, name := range only {
		i := slices.IndexFunc(out, func(e Entry) bool { return e.Name == name })
		if i < 0 {
			unknown = append(unknown, name)
			continue
		}
		if !slices.ContainsFunc(kept, func(e Entry) bool { return e.Name == name }) {
			kept = append(kept, out[i])
		}
	}
	if len(unknown) > 0 {
		var names []string
		for _, e := range out {
			names = append(names, e.Name)
		}
		return nil, fmt.Errorf("--only: no server named %s (the configurations have: %s)", strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	return kept, nil
}

// Run runs every entry, at most o.Jobs at once, starting them in order,
// and returns the results in the entries' order.
func Run(ctx context.Context, entries []Entry, o *Options) []Result {
	jobs := max(o.Jobs, 1)
	if o.Log == nil {
		o.Log = io.Discard
	}
	out := make([]Result, len(entries))
	next := make(chan int)
	var wg sync.WaitGroup
	var logMu sync.Mutex
	// What a server's start sweeps of earlier, dead runs is the scan's,
	// not that server's: its lines carry no server's name.
	sweep := &prefixWriter{w: o.Log, mu: &logMu}
	for range min(jobs, len(entries)) {
		wg.Add(1)
		go func() { // a worker takes the entries in order
			defer wg.Done()
			for i := range next {
				e := entries[i]
				out[i] = runOne(ctx, e, o, &prefixWriter{w: o.Log, mu: &logMu, prefix: e.Name + ": "}, sweep)
				if o.Done != nil {
					o.Done(out[i])
				}
			}
		}()
	}
	for i := range entries {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// runOne makes one entry ready and runs it.
func runOne(ctx context.Context, e Entry, o *Options, log, sweep io.Writer) Result {
	started := time.Now()
	if e.Invalid != nil {
		return Result{Name: e.Name, Launcher: "-", Report: errorReport(e, nil, e.Invalid, o, started)}
	}
	if ctx.Err() != nil {
		return Result{Name: e.Name, Launcher: "-", Report: errorReport(e, nil, fmt.Errorf("interrupted before it started: %v", context.Cause(ctx)), o, started)}
	}
	p, err := makePlan(ctx, e, o)
	res := Result{Name: e.Name, Launcher: p.launcher}
	fail := func(err error) Result {
		res.Report = errorReport(e, p, err, o, started)
		return res
	}
	if err != nil {
		return fail(err)
	}
	resolved, err := config.Resolve(p.file, nil, e.Where(), o.Env, o.Flags)
	if err == nil {
		err = engine.CheckSettings(resolved, catalogue.All)
	}
	if err != nil {
		return fail(err)
	}
	cfg, err := engine.FromSettings(resolved.Settings)
	if err == nil {
		cfg.Own, err = catalogue.Own(resolved.Settings, "")
	}
	if err != nil {
		return fail(err)
	}
	cfg.Log, cfg.SweepLog, cfg.Version, cfg.Cwd = log, sweep, o.Version, o.Cwd
	cfg.HintsAt, cfg.Catalog = resolved.At, catalogue.All
	cfg.Secrets, cfg.Custom = p.secrets, p.custom
	cfg.Staged = p.staged
	cfg.Jobs = 1 // scan runs servers at once (Options.Jobs), each one's packs in order
	if err := o.useLock(&cfg, e.Name); err != nil {
		return fail(err)
	}
	eng, err := engine.New(cfg)
	if err != nil {
		return fail(err)
	}
	var hooks engine.Hooks
	if o.Step != nil {
		n, packs := 0, len(eng.Packs())
		hooks.Pack = func(name string) {
			n++
			o.Step(e.Name, fmt.Sprintf("pack %d/%d %s", n, packs, name))
		}
	}
	rep := eng.Run(ctx, hooks)
	if o.Pin && o.LockDir != "" {
		res.Pinned = o.writeLock(eng, rep, e.Name)
	}
	rep.Warnings = append(append(p.header(), rep.Warnings...), p.notes...)
	rep.HarnessError = p.missingCause(rep.HarnessError)
	res.Report = rep
	return res
}

// header is the note every scanned server's report starts with: where the
// entry came from and its launcher (WriteSummary reads the launcher back).
func (p *plan) header() []string {
	return []string{fmt.Sprintf("scan: %s, launcher %s", p.entry.Where(), p.launcher)}
}

// errorReport is the report of an entry that could not run: a harness
// error, the entry as written (secrets masked), no packs.
func errorReport(e Entry, p *plan, err error, o *Options, started time.Time) *report.Report {
	rep := &report.Report{
		Schema:       report.SchemaVersion,
		Tool:         report.Tool{Name: "sealmark", Version: cmpOr(o.Version, "dev")},
		FailOn:       o.FailOn,
		Class:        report.Standard,
		Started:      started.UTC(),
		Finished:     time.Now().UTC(),
		Server:       report.Server{Command: e.Command, Args: e.Args, URL: redact.URL(e.URL)},
		HarnessError: err.Error(),
	}
	for _, kv := range e.Env {
		rep.Server.Env = append(rep.Server.Env, report.EnvEntry{Name: kv.Name, Value: redact.EnvValue(kv.Name, kv.Value, false)})
	}
	for _, h := range e.Headers {
		name, value := redact.Header(h.Name, h.Value)
		rep.Server.Env = append(rep.Server.Env, report.EnvEntry{Name: name, Value: value})
	}
	r := redact.New()
	if p != nil {
		rep.Warnings = append(p.header(), p.notes...)
		for _, s := range p.secrets {
			r.Secret(s, redact.MaskRedacted)
		}
		if len(p.custom) > 0 {
			rep.Class, rep.ClassReasons = report.Custom, p.custom
		}
	}
	report.Finalize(rep, r)
	return rep
}

// prefixWriter writes each line with a prefix, whole lines at a time
// under a lock shared by the scan's runs.
type prefixWriter struct {
	w      io.Writer
	mu     *sync.Mutex
	prefix string
	part   []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.part = append(p.part, b...)
	for {
		i := slices.Index(p.part, '\n')
		if i < 0 {
			break
		}
		line := p.part[:i+1]
		if _, err := io.WriteString(p.w, p.prefix+string(line)); err != nil {
			return len(b), err
		}
		p.part = p.part[i+1:]
	}
	return len(b), nil
}

// step reports a server's stage to Options.Step, when set.
func (o *Options) step(server, what string) {
	if o.Step != nil {
		o.Step(server, what)
	}
}
