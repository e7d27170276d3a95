// Package engine is Sealmark's one engine: it makes the sandbox, runs the
// packs of the catalogue it is given against one server, each probe with a
// fresh token, and builds the report. It knows no pack by name (the
// shipped ones are internal/catalogue's) and not which front end drives it.
//
//	e, err := engine.New(engine.Config{
//		Command: "node", Args: []string{"server.js", "{sandbox}"},
//		Catalog: catalogue.All,
//	})
//	if err != nil {
//		return err // a usage error: exit 2
//	}
//	rep := e.RunT(ctx, t, engine.Hooks{}) // t is an engine.T: one step per pack, start and probe
//	os.Exit(report.ExitCode(rep, e.FailOn()))
//
// RunT is the one run loop behind both front doors: sealmarktest hands it
// a T that makes every step a subtest, so go test -run selects packs and
// probes; the CLI calls Run, which is RunT with every step run in order.
// A pack joins a run only through its own set-up hook (packs.Pack.Prepare):
// New runs every catalogue pack's Check and Prepare, and the run calls
// what they registered when the sandbox is made, on the first start's
// surface and when the run closes.
package engine

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/environ"
	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/sandbox"
	"github.com/sealmark/sealmark/observers/egress"
	"github.com/sealmark/sealmark/observers/files"
	"github.com/sealmark/sealmark/observers/process"
	"github.com/sealmark/sealmark/packs"
)

// Engine is one run.
type Engine struct {
	given  Config // the configuration as New got it, for the run's parts (parallel.go)
	partOf int    // for a part: how many warnings New gave it, which the run has
	// firstStarted is called once the run's first start has its surface,
	// in the run's own goroutine (parallel.go), or nil.
	firstStarted func()
	staged       map[string]string // the placeholder values server.files were last written with
	cfg          Config
	redactor     *redact.Redactor
	sb           *sandbox.Sandbox
	workdir      string // the server's cwd when there is no sandbox
	install      string // the server's own install directory, {install}; "" when unknown
	vars         map[string]string
	canaries     []environ.KV
	undo         func()
	views        []func(*packs.Sandbox) // the packs' changes to the sandbox view (packs.Opened.View)

	watch *watch // the observers; nil without a sandbox

	marker   string          // SEALMARK_RUN=<id> in every server's environment
	limits   string          // the process and memory limits the last start's containment enforces (packs.Sandbox.Limits)
	httpProc *launch.Process // the HTTP server the run started (Start), or nil
	httpUndo func()
	lifeline []*os.File   // both ends of each start's namespace lifeline (contain.Options.Lifeline)
	cgroups  []cgroupLeaf // each start's cgroup leaf, until its stop removes it
	// startEgress is the egress observer of the start in progress, for
	// watchStart.
	startEgress *egress.Observer
	// discoverIgnored is set when the first start's server/discover got
	// no answer within its bound (starthandshake.go).
	discoverIgnored bool
	// httpVars are the placeholder values httpProc was started with, and
	// httpCanaries whether it holds the canaries (http.go).
	httpVars     map[string]string
	httpCanaries bool

	mu      sync.Mutex
	rep     report.Report
	starts  int
	surface *packs.Surface
	closed  bool
	running *packRun // the start whose probes run now
	held    *packRun // a start kept for the next pack that shares one (share.go)
	// unstarted names the pack whose start failed before any start
	// succeeded: every later pack is skipped.
	unstarted string
	stopped   bool // the run was interrupted (shown once)
	hurry     bool // the run is ending early: servers get hurryGrace
	baselined bool // the baseline was applied to the final report
	sizeHit   bool // the size observer stopped the server during the current probe
}

// New checks the configuration. Its error is a usage error (exit 2).
func New(cfg Config) (*Engine, error) {
	given := cfg
	cfg.defaults()
	if len(cfg.Catalog) == 0 {
		return nil, errors.New("no packs to choose from: Config.Catalog is empty (catalogue.All is every pack Sealmark ships)")
	}
	cfg.addOwn()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("cannot read the working directory for {cwd}: %v", err)
		}
		cfg.Cwd = wd
	}
	if cfg.Caller == nil {
		cfg.Caller = os.Environ()
	}
	e := &Engine{cfg: cfg, given: given, redactor: redact.New()}
	e.rep = report.Report{
		Schema:            report.SchemaVersion,
		Tool:              report.Tool{Name: "sealmark", Version: cfg.Version},
		Class:             report.Standard,
		FailOn:            cfg.failOn().String(),
		AllowInconclusive: cfg.AllowInconclusive,
		Started:           time.Now().UTC(),
		Server:            report.Server{Command: cmp.Or(cfg.Shown, cfg.Command), Args: cfg.Args},
	}
	if n, all := e.probeCount(); n < all {
		var sel []string
		if len(cfg.OnlyProbes) > 0 {
			sel = append(sel, "--probes "+strings.Join(cfg.OnlyProbes, ","))
		}
		if len(cfg.SkipProbes) > 0 {
			sel = append(sel, "--skip-probes "+strings.Join(cfg.SkipProbes, ","))
		}
		e.rep.Warnings = append(e.rep.Warnings, fmt.Sprintf("%s: %d of the selected packs' %d probes run", strings.Join(sel, " "), n, all))
	}
	for _, kv := range cfg.Env {
		e.rep.Server.Env = append(e.rep.Server.Env, report.EnvEntry{Name: kv.Name, Value: redact.EnvValue(kv.Name, kv.Value, false)})
	}
	// A URL's password anywhere the user wrote one is a secret wherever
	// it shows up; the report's rewrite masks it inside URLs however short.
	for _, s := range slices.Concat(cfg.Args, []string{cfg.Start, cfg.URL}, envValues(cfg.Env), envValues(cfg.Headers)) {
		for _, pw := range redact.URLPasswords(s) {
			e.redactor.Secret(pw, redact.MaskRedacted)
		}
	}
	if cfg.URL != "" {
		e.rep.Server.URL = redact.URL(cfg.URL)
		if cfg.Start != "" {
			e.rep.Server.Command = cfg.Start
		}
	}
	for _, h := range cfg.Headers {
		name, value := redact.Header(h.Name, h.Value)
		e.rep.Server.Env = append(e.rep.Server.Env, report.EnvEntry{Name: name, Value: value})
		if h.Value != "" && !redact.HasPlaceholder(h.Value) {
			e.redactor.Secret(h.Value, redact.MaskRedacted) // a header value is a credential until shown otherwise
		}
	}
	for _, s := range cfg.Secrets {
		e.redactor.Secret(s, redact.MaskRedacted)
	}
	for _, reason := range cfg.Custom {
		e.custom(reason)
	}
	if cfg.NoSandbox {
		e.custom("--no-sandbox: the server ran outside a sandbox with the inherited environment")
	} else if cfg.InheritEnv {
		e.custom("sandbox.scrub_env: false: the server got the inherited environment")
	}
	if len(cfg.LayersOff) > 0 && !cfg.NoSandbox {
		e.custom("sandbox.layers_off: " + strings.Join(cfg.LayersOff, ", ") + ": the server ran with weaker containment")
	}
	if missing := containmentMissing(goos, probeContainment()); missing != "" && (cfg.Command != "" || cfg.Start != "") && !cfg.NoSandbox {
		if !cfg.Uncontained {
			return nil, fmt.Errorf("%s: the server would start with your files and network open to it, so it is not started; "+
				"run Sealmark on Linux (a Linux VM or WSL2 elsewhere), or give --uncontained (the run is CUSTOM)", missing)
		}
		e.custom(missing + " (--uncontained): the server ran with full file and network access")
	}
	return e, nil
}

func (e *Engine) custom(reason string) {
	e.rep.Class = report.Custom
	e.rep.ClassReasons = append(e.rep.ClassReasons, reason)
}

// Packs returns the selected packs, in run order.
func (e *Engine) Packs() []packs.Pack {
	if len(e.cfg.Packs) == 0 {
		return e.cfg.selected(e.cfg.catalog())
	}
	var out []packs.Pack
	for _, p := range e.cfg.catalog() {
		if slices.Contains(e.cfg.Packs, p.Name) {
			out = append(out, p)
		}
	}
	return e.cfg.selected(out)
}

// wantsGit reports whether the sandbox is made with the git layout at
// once: the configuration names {repo}, or the first selected pack asks
// for the layout (Pack.GitLayout: no start before it shows whether it
// applies). Otherwise a run that selects such a pack (the git pack)
// stages it just before that pack's start, once the first start's
// surface shows that it applies (stageGit): it costs over a dozen git
// commands, so runs whose server has no git tool go without.
func (e *Engine) wantsGit() bool {
	if ps := e.Packs(); len(ps) > 0 && ps[0].GitLayout {
		return true
	}
	texts := append([]string{e.cfg.Start, e.cfg.URL}, e.cfg.Args...)
	for _, kv := range e.cfg.Env {
		texts = append(texts, kv.Value)
	}
	for _, t := range texts {
		if strings.Contains(t, "{repo}") {
			return true
		}
	}
	return false
}

// open makes the sandbox (or the throwaway working directory), the
// canaries and the placeholders. Its error means the harness could not run.
func (e *Engine) open() error {
	e.undo = cleanup.Add(func() { _ = e.removeSandbox() })
	e.canaries = environ.Canaries()
	for _, c := range e.canaries {
		e.redactor.Secret(c.Value, redact.MaskCanary)
		e.rep.Server.Env = append(e.rep.Server.Env, report.EnvEntry{Name: c.Name, Value: redact.MaskCanary})
	}
	e.vars = map[string]string{"cwd": e.cfg.Cwd}
	port, err := freePort()
	if err != nil {
		return e.harnessError(fmt.Errorf("picking a loopback port for {port}: %v", err))
	}
	e.vars["port"] = strconv.Itoa(port)
	e.redactor.Stable(e.cfg.Cwd, "{cwd}")
	parent := e.cfg.SandboxDir
	if parent == "" {
		parent = os.TempDir()
	}
	if !e.cfg.noSweep {
		for _, line := range contain.SweepStale(parent) {
			fmt.Fprintf(e.cfg.SweepLog, "sealmark: stale run: %s\n", line)
		}
		for _, dir := range files.SweepStale() {
			fmt.Fprintf(e.cfg.SweepLog, "sealmark: stale run: removed the files observer's directory %s\n", dir)
		}
	}
	e.marker = process.Marker()
	if e.cfg.NoSandbox {
		dir, err := os.MkdirTemp(e.cfg.SandboxDir, "sealmark-work-")
		if err != nil {
			return e.harnessError(fmt.Errorf("making the throwaway working directory: %v", err))
		}
		e.workdir = dir
		e.redactor.Stable(dir, "{workdir}")
		e.rep.Sandbox.EnvMode = "inherited"
	}
	if e.cfg.NoSandbox {
		// the packs' placeholders are defined before server.files are
		// staged, which may name them
		if err := e.openPacks(); err != nil {
			return e.harnessError(err)
		}
	}
	if !e.cfg.NoSandbox {
		opts := sandbox.Options{Parent: e.cfg.SandboxDir, Harness: e.cfg.Harness, GitRepo: e.wantsGit(), Keep: e.cfg.KeepSandbox}
		if !slices.Contains(e.cfg.LayersOff, "quota") {
			opts.MaxBytes = int64(e.cfg.MaxMiB) << 20
		}
		sb, err := sandbox.New(opts)
		if err != nil {
			return e.harnessError(fmt.Errorf("making the sandbox: %v", err))
		}
		e.sb = sb
		if err := contain.WriteOwner(sb.Top, e.marker); err != nil {
			e.warn("the sandbox has no owner record, so a crashed run's leftovers cannot be swept: " + err.Error())
		}
		// A server.start server gets what a stdio one gets: the scrubbed
		// environment, the canaries and the sandbox root.
		if e.cfg.InheritEnv {
			// The throwaway working directory lives in the sandbox, so it
			// goes with it and containment lets the server write there.
			dir := filepath.Join(sb.Top, "work")
			if err := os.Mkdir(dir, 0o700); err != nil {
				return e.harnessError(fmt.Errorf("making the throwaway working directory: %v", err))
			}
			e.workdir = dir
			e.redactor.Stable(dir, "{workdir}")
			e.rep.Sandbox.EnvMode = "inherited"
		}
		e.vars["sandbox"], e.vars["sandbox_home"] = sb.Root, sb.Home
		if sb.Repo != "" {
			e.vars["repo"] = sb.Repo
		}
		for _, f := range sb.Files {
			e.redactor.Secret(f.Secret, "<canary-file>")
		}
		for _, s := range []string{sb.CanaryRepoSecret, sb.Git.EvilRepoSecret} {
			if s != "" {
				e.redactor.Secret(s, "<canary-file>")
			}
		}
		e.redactor.Secret(sb.OKToken, "<ok-token>")
		e.redactor.Stable(sb.Root, "{sandbox}")
		e.redactor.Stable(sb.Home, "{sandbox_home}")
		e.redactor.Stable(sb.RootEvil, "{sandbox_top}/root-evil")
		e.redactor.Stable(sb.Top, "{sandbox_top}")
		if err := e.openPacks(); err != nil {
			return e.harnessError(err)
		}
		if e.rep.Sandbox.EnvMode == "" {
			e.rep.Sandbox.EnvMode = "scrubbed"
		}
		e.rep.Sandbox.Path = sb.Top
		e.rep.Sandbox.MaxMiB = e.cfg.MaxMiB
		for _, n := range sb.Notes {
			e.warn("sandbox: " + n)
		}
		if err := e.openObservers(); err != nil {
			return e.harnessError(fmt.Errorf("starting the observers: %v", err))
		}
		if e.cfg.KeepSandbox {
			e.rep.Sandbox.Kept = true
			fmt.Fprintf(e.cfg.Log, "sealmark: keeping the sandbox at %s\n", sb.Top)
		}
	}
	if e.watch == nil {
		e.rep.Sandbox.Isolation = "procs=pgid; nothing observed: no sandbox"
	}
	top := ""
	if e.sb != nil {
		top = e.sb.Top
	}
	if e.install = installDir(e.cfg, e.vars); e.install != "" {
		e.redactor.Stable(e.install, "{install}")
	}
	for _, w := range environ.PathWarnings(e.cfg.Args, e.cfg.Env, top) {
		e.warn(w)
	}
	// A value under a secret-looking name (its placeholders expanded) or a
	// token-shaped one is a secret of the run: redact.SecretEnv's rule.
	for _, kv := range e.cfg.Env {
		if redact.SecretName(kv.Name) || redact.SecretEnv(kv.Name, kv.Value) {
			if v, err := environ.Expand(kv.Value, e.vars); err == nil {
				e.redactor.Secret(v, "<redacted>")
			}
		}
	}
	return nil
}

func (e *Engine) warn(w string) {
	e.mu.Lock()
	e.rep.Warnings = append(e.rep.Warnings, w)
	e.mu.Unlock()
	fmt.Fprintf(e.cfg.Log, "sealmark: warning: %s\n", e.redactor.String(w))
}

// harnessError records that the harness could not run and returns err.
func (e *Engine) harnessError(err error) error {
	e.mu.Lock()
	if e.rep.HarnessError == "" {
		e.rep.HarnessError = err.Error()
	}
	e.mu.Unlock()
	return err
}

// Close stops nothing (each pack's start stops itself), deletes the sandbox
// unless it is kept, and finalizes the report. It is safe to call twice.
func (e *Engine) Close() *report.Report {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return &e.rep
	}
	e.closed = true
	e.mu.Unlock()
	e.dropHeld()
	e.stopHTTP()
	if e.watch != nil && e.watch.process != nil && e.httpProc != nil {
		_, grace := e.graces()
		if recs := e.watch.process.Sweep(grace); len(recs) > 0 {
			e.rep.Timeline = append(e.rep.Timeline, recs...)
		}
	}
	e.releaseLifelines()
	e.removeCgroups("the started HTTP server")
	e.closeObservers()
	e.closePacks()
	if err := e.removeSandbox(); err != nil {
		e.rep.Sandbox.CleanupError = err.Error()
		fmt.Fprintf(e.cfg.Log, "sealmark: could not delete %v\n", err)
	}
	if e.undo != nil {
		e.undo()
	}
	if e.starts == 0 && e.rep.HarnessError == "" {
		e.rep.HarnessError = neverStarted
	}
	e.rep.Finished = time.Now().UTC()
	report.Finalize(&e.rep, e.redactor)
	if e.rep.Sandbox.Kept && e.sb != nil {
		e.rep.Sandbox.Path = e.sb.Top
	}
	return &e.rep
}

// neverStarted is the harness error of a run that started no server.
const neverStarted = "the server was never started: no pack ran"

// removeSandbox deletes the sandbox (unless kept) and the throwaway working
// directory. Its error names the path left behind, as "path: why".
func (e *Engine) removeSandbox() error {
	var errs []string
	if e.sb != nil && !e.cfg.KeepSandbox {
		if err := e.sb.Remove(); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", e.sb.Top, err))
		}
	}
	if e.sb != nil && e.cfg.KeepSandbox {
		// its files leave the quota's memory-backed filesystem for disk
		if err := e.sb.Kept(); err != nil {
			errs = append(errs, err.Error())
		}
		// kept for the user: the next run's stale sweep must not take it
		if err := contain.Release(e.sb.Top); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if e.workdir != "" && e.sb == nil {
		if err := os.RemoveAll(e.workdir); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", e.workdir, err))
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// stageFiles writes server.files into the sandbox before anything starts,
// with every run placeholder ({sandbox}, {listener}, {dsn}, ...) expanded.
func (e *Engine) stageFiles() error {
	e.staged = maps.Clone(e.vars)
	return e.stageFilesWith(e.vars, nil)
}

// restageFiles writes again, before a start, the staged files that name a
// placeholder whose value differs from the one they were last written
// with: a start that gives it its own value (the db pack's per-role
// {dsn}), or the start after it, which goes back to the run's. So each
// start's server reads its own values, as its arguments and environment
// do.
func (e *Engine) restageFiles(vars map[string]string) error {
	if e.sb == nil || e.staged == nil {
		return nil
	}
	var changed []string
	for k := range maps.Keys(vars) {
		if e.staged[k] != vars[k] {
			changed = append(changed, "{"+k+"}")
		}
	}
	for k := range maps.Keys(e.staged) {
		if _, ok := vars[k]; !ok {
			changed = append(changed, "{"+k+"}")
		}
	}
	if len(changed) == 0 {
		return nil
	}
	e.staged = maps.Clone(vars)
	return e.stageFilesWith(vars, func(f File) bool {
		return slices.ContainsFunc(changed, func(ph string) bool {
			return strings.Contains(f.Path, ph) || strings.Contains(f.Content, ph)
		})
	})
}

// stageFilesWith writes the files that only accepts (all when nil) with
// vars expanded.
func (e *Engine) stageFilesWith(vars map[string]string, only func(File) bool) error {
	for _, f := range e.cfg.Files {
		if only != nil && !only(f) {
			continue
		}
		path, err := environ.Expand(f.Path, vars)
		if err != nil {
			return fmt.Errorf("server.files %s: %v", f.Path, err)
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(e.sb.Root, path)
		}
		if rel, err := filepath.Rel(e.sb.Top, path); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("server.files %s: the path leaves the sandbox", f.Path)
		}
		if f.Dir() {
			if err := os.MkdirAll(path, 0o700); err != nil {
				return fmt.Errorf("server.files %s: %v", f.Path, err)
			}
			continue
		}
		content, err := environ.Expand(f.Content, vars)
		if err != nil {
			return fmt.Errorf("server.files %s: %v", f.Path, err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("server.files %s: %v", f.Path, err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			return fmt.Errorf("server.files %s: %v", f.Path, err)
		}
	}
	for _, f := range e.cfg.Staged {
		path, err := e.sandboxPath(f.Path)
		if err != nil {
			return fmt.Errorf("staging %s: %v", f.Path, err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("staging %s: %v", f.Path, err)
		}
		if err := os.WriteFile(path, f.Data, 0o400); err != nil {
			return fmt.Errorf("staging %s: %v", f.Path, err)
		}
	}
	return nil
}

// sandboxPath is a path relative to the sandbox root or starting with
// {sandbox}, expanded, or an error if it leaves the sandbox.
func (e *Engine) sandboxPath(p string) (string, error) {
	path, err := environ.Expand(p, e.vars)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.sb.Root, path)
	}
	if rel, err := filepath.Rel(e.sb.Top, path); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errors.New("the path leaves the sandbox")
	}
	return path, nil
}

// Report returns the report so far (final after Close).
func (e *Engine) Report() *report.Report { return &e.rep }

// FailOn is the run's fail bar.
func (e *Engine) FailOn() packs.Severity { return e.cfg.failOn() }

// Redact masks every secret the run knows in s and replaces real paths and
// tokens by their stable names.
func (e *Engine) Redact(s string) string { return e.redactor.String(s) }

func token() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "smtok-" + hex.EncodeToString(b)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func packNames(ps []packs.Pack) string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// envValues are the values of a list of name=value entries.
func envValues(kvs []environ.KV) []string {
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		out[i] = kv.Value
	}
	return out
}
