package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/sealmark/sealmark/internal/environ"
	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/session"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// StartError is a server start that failed: the process did not start, did
// not complete initialize, or did not list its tools in time.
type StartError struct {
	Err     error
	LogTail string // the end of the server log, redacted
	// NoProcess is true when the harness started no process (a server
	// reached by URL alone): there is no log to speak of.
	NoProcess bool
}

func (e *StartError) Error() string {
	if e.NoProcess {
		return e.Err.Error()
	}
	if e.LogTail == "" {
		return e.Err.Error() + " (the server log is empty)"
	}
	return fmt.Sprintf("%v\nserver log (last lines):\n%s", e.Err, e.LogTail)
}

func (e *StartError) Unwrap() error { return e.Err }

// packRun is one pack on its own start of the server.
type packRun struct {
	e        *Engine
	pack     packs.Pack
	proc     *launch.Process
	sess     conn
	surface  *packs.Surface
	canaries []packs.Secret
	shared   map[string]any
	vars     map[string]string // the run's placeholders and the start's own
	idx      int               // the report's pack entry
	extra    bool              // the drift check's start: its failure is no harness error
	undo     func()
	stopped  bool
	// abandoned says why the start's later probes do not run: a probe
	// overran its deadline and did not return (set under e.mu).
	abandoned string
	// retries counts the probes runProbe ran again for time; hangs is set
	// when one of them timed out again (both under e.mu).
	retries int
	hangs   bool

	seenMu sync.Mutex
	seen   []observers.Record // what the observers saw since this start

	// startOf names the pack whose start of the server this is (the
	// pack's own, or the one that handed it on: share.go); gitReady is
	// set when the sandbox's git layout was staged before the server
	// started; firstProbe is when the first probe on it began.
	startOf    string
	gitReady   bool
	firstProbe time.Time

	started time.Time                 // when the server's process was started
	lat     latency                   // what the start measured of the server's speed (latency.go)
	hostArg []string                  // the server's absolute path arguments: kept read-only in its namespace
	recent  func() []observers.Record // the egress observer's latest records; nil without one
}

// conn is a session with the server, over stdio or HTTP.
type conn interface {
	packs.Server
	Initialize(ctx context.Context, version string) (packs.Init, error)
	InitializeAs(ctx context.Context, era, version string) (packs.Init, error)
	Negotiated() session.Negotiation
	ListTools(ctx context.Context, maxPages int) ([]packs.Tool, error)
	Close()
}

// startPack starts the server for one of pk's starts (stdio: a fresh
// process; HTTP: a fresh session on the one server), with st's values
// added to the placeholders. The first start of the run gets the canaries
// and its tool list becomes the run's surface. A *StartError means the
// server did not start. Its results go to the report's pack entry idx,
// or to a new entry when idx < 0.
func (e *Engine) startPack(ctx context.Context, pk packs.Pack, st packs.Start, idx int) (*packRun, error) {
	for _, s := range st.Secrets {
		if s != "" {
			e.redactor.Secret(s, redact.MaskRedacted)
		}
	}
	e.dropHeld() // one server at a time
	extra := idx >= 0
	e.mu.Lock()
	first := e.starts == 0
	e.starts++
	if idx < 0 {
		e.rep.Packs = append(e.rep.Packs, report.Pack{Name: pk.Name, Start: st.Name, Doc: pk.Doc, User: pk.User})
		idx = len(e.rep.Packs) - 1
	}
	pr := &packRun{e: e, pack: pk, shared: map[string]any{}, idx: idx, extra: extra, vars: maps.Clone(e.vars), startOf: pk.Name}
	e.mu.Unlock()
	maps.Copy(pr.vars, st.Vars)

	sctx, cancel := context.WithTimeout(ctx, e.cfg.StartTimeout)
	defer cancel()
	begun := time.Now()
	if e.cfg.URL != "" {
		if err := e.openHTTP(sctx, pr, first); err != nil {
			return nil, err
		}
		e.mu.Lock()
		e.running = pr
		e.mu.Unlock()
	} else if err := e.launchRunning(pr, first); err != nil {
		return nil, err
	}

	ictx, endWatch := e.watchStart(sctx)
	init, fresh, cancelFresh, err := e.handshake(ctx, ictx, pr, first) // starthandshake.go
	refused := errors.Is(context.Cause(ictx), errRefusedAtStart)
	endWatch()
	if fresh != nil { // a fresh start after the server answered both eras
		defer cancelFresh()
		sctx = fresh
	}
	if err != nil {
		var unended int64 // the stdout line the server was in the middle of
		if pr.proc != nil {
			unended = pr.proc.Unended()
		}
		if why := interruption(ctx); why != "" {
			e.mu.Lock()
			e.hurry = true
			e.mu.Unlock()
			pr.Close()
			return nil, e.startError(pr, fmt.Errorf("interrupted: %s while the server started", why))
		}
		exited := pr.exitedEarly()
		e.gradeStartLimits(pr) // startlimits.go
		if exited != "" {
			pr.Close()
			return nil, e.startError(pr, errors.New(exited))
		}
		pr.Close()
		if refused {
			advice := serviceAdvice
			if pr.proc != nil && downloadAttempted(e.cfg.Command, string(pr.proc.Log().Bytes())) {
				advice = launcherAdvice
			}
			return nil, e.startError(pr, fmt.Errorf("the server tried to reach the network while starting, which the sandbox refuses, "+
				"and had not completed initialize %s later (the timeline lists what it tried): %s", max(offlineWait, e.cfg.StartTimeout/2), advice))
		}
		return nil, e.startError(pr, e.initFailure(ctx, sctx, err, unended))
	}
	inited := time.Now()
	surface := &packs.Surface{Init: init}
	tools, err := pr.sess.ListTools(sctx, 100)
	if !pr.started.IsZero() {
		begun = pr.started // the process's start (a fresh one's, after both eras)
	}
	pr.lat = measure(begun, inited, pr.sess.Negotiated(), time.Since(inited))
	surface.Tools = tools
	if err != nil {
		surface.ToolsError = err.Error()
		surface.ToolsTooLarge = errors.As(err, new(*packs.TooLargeError)) || errors.As(err, new(*packs.TooDeepError))
	}
	pr.surface = surface
	if first && err == nil {
		if herr := e.checkSurface(surface); herr != nil {
			return nil, e.startError(pr, herr)
		}
	}
	if first {
		e.mu.Lock()
		e.surface = surface
		e.rep.Protocol = report.Protocol{Era: session.Era(init.Version), Version: init.Version, Transport: pr.sess.Transport(), ServerName: init.Server.Name, ServerVersion: init.Server.Version}
		e.mu.Unlock()
		if e.firstStarted != nil {
			e.firstStarted() // parallel.go: the later packs may start beside this one
		}
	}
	return pr, nil
}

// launch starts command with args (placeholders expanded) in the server's
// environment: scrubbed in the sandbox, or inherited. The first start gets
// the canaries, and so does the start of a pack that asks for them.
func (e *Engine) launch(pr *packRun, first bool, command string, rawArgs []string) (*launch.Process, error) {
	if err := e.restageFiles(pr.vars); err != nil {
		return nil, e.startError(pr, err)
	}
	args := make([]string, len(rawArgs))
	for i, a := range rawArgs {
		v, err := environ.Expand(a, pr.vars)
		if err != nil {
			return nil, e.startError(pr, fmt.Errorf("server.args[%d]: %v", i, err))
		}
		args[i] = v
	}
	var serverEnv []environ.KV
	for _, kv := range e.cfg.Env {
		v, err := environ.Expand(kv.Value, pr.vars)
		if err != nil {
			return nil, e.startError(pr, fmt.Errorf("server.env %s: %v", kv.Name, err))
		}
		serverEnv = append(serverEnv, environ.KV{Name: kv.Name, Value: v})
	}
	spec := environ.Spec{Scrub: e.sb != nil && e.workdir == "", KeepEnv: e.cfg.KeepEnv, ServerEnv: serverEnv, Caller: e.cfg.Caller, GOOS: goos}
	dir := e.workdir
	if e.sb != nil {
		spec.Bin, spec.Home, spec.Tmp = e.sb.Bin, e.sb.Home, e.sb.Tmp
		if dir == "" {
			dir = e.sb.Root
		}
	}
	if first || pr.extra || pr.pack.Canaries && e.cfg.URL == "" {
		// The drift check's start gets the first start's canaries too, so
		// that it compares like with like: a tool description built from
		// the environment is no drift.
		spec.Canaries = e.canaries
		for _, c := range e.canaries {
			pr.canaries = append(pr.canaries, packs.Secret{Name: c.Name, Value: c.Value})
		}
	}
	if e.watch != nil {
		name, value, _ := strings.Cut(e.watch.marker, "=")
		spec.ServerEnv = append(spec.ServerEnv, environ.KV{Name: name, Value: value})
	}
	env, inherited := environ.Build(spec)
	if first && spec.Scrub {
		e.rep.Sandbox.Inherited = inherited
	}
	path, err := environ.LookPath(command, lookupPATH(env), e.cfg.Cwd)
	if err != nil {
		return nil, e.startError(pr, fmt.Errorf("server command: %v", err))
	}
	lspec, hand, policy := e.contain(launch.Spec{Path: path, Args: args, Env: env, Dir: dir})
	pr.started = time.Now()
	pr.gitReady = e.sb != nil && e.sb.Repo != ""
	for _, a := range args {
		if filepath.IsAbs(a) {
			pr.hostArg = append(pr.hostArg, filepath.Clean(a))
		}
	}
	proc, err := launch.Start(lspec)
	if err != nil {
		hand.Cancel()
		return nil, e.startError(pr, fmt.Errorf("starting %s: %v", command, err))
	}
	e.keepCgroup(hand)
	obs, err := e.observeEgress(hand, proc.Pid(), policy)
	if obs != nil {
		pr.recent = obs.Recent
	}
	if err != nil {
		proc.Kill()
		proc.Stop(0, 0)
		hand.Cancel()
		return nil, e.startError(pr, fmt.Errorf("starting %s: the egress observer's hand-off failed: %v", command, err))
	}
	if e.watch != nil && e.watch.process != nil {
		e.watch.process.Track(proc.Pid())
	}
	return proc, nil
}

// applies reports whether the pack applies to this server, and why not.
func (pr *packRun) applies() (bool, string) {
	if pr.pack.Applies == nil {
		return true, ""
	}
	s := pr.surface
	if pr.e.surface != nil {
		s = pr.e.surface
	}
	return pr.pack.Applies(s)
}

// packNotApplicable records the whole pack as not applicable.
func (pr *packRun) packNotApplicable(why string) {
	pr.e.mu.Lock()
	defer pr.e.mu.Unlock()
	pr.e.rep.NotCovered = append(pr.e.rep.NotCovered, report.NotCovered{Pack: pr.pack.Name, Reason: "not applicable: " + why})
}

// runProbe runs one probe with a fresh token and records its result. A
// probe left inconclusive because the server did not answer a call within
// the call timeout runs once more with longer bounds (retryScale times the
// call timeout and the probe deadline) before its verdict is
// reported, so a loaded machine does not turn a verdict into "untested";
// the result says so in a note. A start retries at most maxRetries
// probes, and none after a retry that timed out again: a server that
// hangs is not waited for twice over.
func (pr *packRun) runProbe(ctx context.Context, probe packs.Probe) report.Probe {
	res, timed := pr.attempt(ctx, probe, 1)
	if timed && pr.retryable(ctx) {
		first := res
		res, timed = pr.attempt(ctx, probe, retryScale)
		pr.e.mu.Lock()
		pr.retries++
		if timed {
			pr.hangs = true
		}
		pr.e.mu.Unlock()
		note := fmt.Sprintf("retried with %dx the call timeout and probe deadline after: %s", retryScale, first.Reason)
		res.Notes = append([]string{pr.e.redactor.String(note)}, res.Notes...)
	}
	pr.e.record(pr.idx, pr.pack.Name, res)
	return res
}

// Bounds of runProbe's retries.
const (
	retryScale = 3
	maxRetries = 3
)

// retryable reports whether a probe of this start may run again.
func (pr *packRun) retryable(ctx context.Context) bool {
	pr.e.mu.Lock()
	defer pr.e.mu.Unlock()
	return ctx.Err() == nil && pr.abandoned == "" && !pr.hangs && pr.retries < maxRetries &&
		pr.sess != nil && pr.sess.Alive()
}

// attempt runs the probe once with its bounds multiplied by scale and
// reports whether it ended inconclusive for time.
func (pr *packRun) attempt(ctx context.Context, probe packs.Probe, scale int) (res report.Probe, timed bool) {
	e := pr.e
	tok := token()
	e.redactor.Stable(tok, "{token}")
	res = report.Probe{ID: probe.ID, Name: probe.Name, Doc: probe.Doc, Severity: probe.Severity, CWE: probe.CWE, Token: tok}
	start := time.Now()
	if why := pr.abandonedWhy(); why != "" {
		res.Verdict, res.Reason = packs.Inconclusive, "not run: "+why
		return res, false
	}
	if probe.Active && !e.cfg.Active {
		res.Verdict, res.Reason = packs.NotApplicable, "an active probe: runs only with --active (Config.Active)"
	} else {
		pctx, cancel := context.WithTimeoutCause(ctx, time.Duration(scale)*pr.probeBound(), errProbeDeadline)
		defer cancel()
		p := &packs.Pass{
			Ctx: pctx, Probe: &probe, Token: tok, Server: pr.sess, Surface: pr.surface, First: e.firstSurface(),
			Sandbox: e.sandboxView(), Canaries: pr.canaries, Active: e.cfg.Active,
			CallTimeout: time.Duration(scale) * pr.callBound(), Scale: scale, Shared: pr.shared, Vars: pr.vars, HTTP: pr.httpTarget(),
			Listener6: e.listener6(), Install: e.install, Lock: e.cfg.Lock, Redact: e.redactor.String,
		}
		e.mu.Lock()
		e.sizeHit = false
		e.mu.Unlock()
		view := pr.begin(tok)
		if view != nil {
			p.Observed = view
		}
		panicked, returned := runBounded(pctx, probe.Run, p)
		if why := interruption(ctx); why != "" {
			// Cut short from outside: what the probe saw since says nothing
			// about the server (its calls failed because they were
			// cancelled), so the probe is neither passed nor failed.
			e.mu.Lock()
			e.hurry = true
			e.mu.Unlock()
			res.Verdict, res.Reason = packs.Inconclusive, "interrupted: "+why+" during this probe"
			if !returned {
				res.Reason += fmt.Sprintf("; the probe had not returned %s later and was abandoned", probeGrace)
			}
			res.Millis = time.Since(start).Milliseconds()
			return res, false
		}
		if errors.Is(context.Cause(pctx), errProbeDeadline) {
			// The probe's own deadline: the server kept it waiting. What it
			// reported rests on calls the deadline cancelled, so it is
			// inconclusive, not a pass and not a finding.
			res.Verdict = packs.Inconclusive
			res.Reason = fmt.Sprintf("the probe's deadline passed (timeouts.probe %s): its calls were cancelled", time.Duration(scale)*pr.probeBound())
			if !returned {
				why := fmt.Sprintf("probe %s overran its deadline (timeouts.probe %s) and was abandoned, so the server was stopped", probe.Name, time.Duration(scale)*pr.probeBound())
				pr.abandon(why)
				res.Reason += fmt.Sprintf("; it had not returned %s later and was abandoned; the server was stopped", probeGrace)
			} else {
				res.Observations = view.finish()
				_, _, dropped, notes := p.Outcome()
				res.Notes = notes
				if len(dropped) > 0 {
					res.Reason += fmt.Sprintf("; %d finding(s) it reported are not judged", len(dropped))
				}
				addLimitFindings(&res, limitFindings(probe.Name, res.Observations))
				e.fingerprint(pr.pack, probe.ID, &res)
			}
			res.Millis = time.Since(start).Milliseconds()
			// Not retried: the probe already had timeouts.probe (5 minutes
			// by default) to finish.
			return res, false
		}
		res.Observations = view.finish()
		e.mu.Lock()
		if e.sizeHit {
			p.Reportf("%s during this probe; the server was stopped", e.sizeWords(0)).
				Evidencef("size", "the size observer saw the sandbox pass its limit").Severity = packs.High
		}
		e.mu.Unlock()
		if panicked != "" {
			res.Verdict, res.Reason = packs.Errored, panicked
		} else {
			res.Verdict, res.Reason, res.Findings, res.Notes = p.Outcome()
			timed = res.Verdict == packs.Inconclusive && p.TimedOut()
			res.Positions = p.Positions()
		}
		addLimitFindings(&res, limitFindings(probe.Name, res.Observations))
	}
	res.Millis = time.Since(start).Milliseconds()
	e.fingerprint(pr.pack, probe.ID, &res)
	return res, timed
}

// fingerprint caps res's findings and gives each the fingerprint Finalize
// would give, known now so that a baseline can accept the finding while
// the run goes on, and labels those that are the server's SDK's own
// behaviour with the SDK, as pk, the probe's pack, tells (Pack.Inherited).
func (e *Engine) fingerprint(pk packs.Pack, id string, res *report.Probe) {
	capped := len(res.Findings) > MaxProbeFindings
	res.Findings = capFindings(res.Findings, MaxProbeFindings)
	e.mu.Lock()
	transport := e.rep.Protocol.Transport
	var init json.RawMessage
	if e.surface != nil {
		init = e.surface.Init.Result
	}
	e.mu.Unlock()
	for i := range res.Findings {
		f := &res.Findings[i]
		f.Fingerprint = report.Fingerprint(id, e.redactor.String(f.Message))
		if pk.Inherited != nil {
			f.Inherited = pk.Inherited(transport, init, id, e.redactor.String(f.Message))
		}
	}
	if capped {
		// The aggregate's count varies from run to run; its fingerprint
		// does not, so a baseline can accept it.
		res.Findings[len(res.Findings)-1].Fingerprint = report.Fingerprint(id, aggregateKey)
	}
}

// record adds one probe's result to the report's pack entry idx.
func (e *Engine) record(idx int, pack string, res report.Probe) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.rep.Packs[idx].Probes = append(e.rep.Packs[idx].Probes, res)
	if res.Verdict == packs.NotApplicable || res.Verdict == packs.Inconclusive {
		e.rep.NotCovered = append(e.rep.NotCovered, report.NotCovered{Pack: pack, Probe: res.Name, Reason: string(res.Verdict) + ": " + res.Reason})
	}
}

// errProbeDeadline is the cause of a probe's context past timeouts.probe.
var errProbeDeadline = errors.New("the probe's deadline passed")

// abandon stops the server of a start whose probe could not be stopped:
// the abandoned probe may still use the session, so no later probe of the
// start runs on it.
func (pr *packRun) abandon(why string) {
	pr.e.mu.Lock()
	pr.abandoned = why
	pr.e.mu.Unlock()
	if pr.proc != nil {
		pr.proc.Kill()
	} else if pr.sess != nil {
		pr.sess.Close()
	}
}

// abandonedWhy says why the start's later probes do not run, "" while they do.
func (pr *packRun) abandonedWhy() string {
	pr.e.mu.Lock()
	defer pr.e.mu.Unlock()
	return pr.abandoned
}

// hurryGrace bounds each shutdown step of a server stopped because the
// run was interrupted: a signal must end the run within a couple of seconds.
const hurryGrace = 300 * time.Millisecond

// graces are the shutdown steps' bounds, stdin close then SIGTERM: the
// configured ones, or hurryGrace once the run is ending early.
func (e *Engine) graces() (stdin, term time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.hurry {
		// The run is ending: the server gets a short grace, not the full one.
		return min(e.cfg.StdinGrace, hurryGrace), min(e.cfg.TermGrace, hurryGrace)
	}
	return e.cfg.StdinGrace, e.cfg.TermGrace
}

// probeGrace is how long a probe whose context ended may take to return
// before it is abandoned: its calls fail at once, but a probe may sleep or
// wait on something else.
const probeGrace = 500 * time.Millisecond

// runBounded runs a probe guarded, and returns when it returns or, once ctx
// has ended, within probeGrace; returned is false when the probe was
// abandoned (its goroutine ends when its calls fail on the stopped server).
func runBounded(ctx context.Context, run func(*packs.Pass), p *packs.Pass) (panicked string, returned bool) {
	done := make(chan string, 1)
	go func() { done <- runGuarded(run, p) }()
	select {
	case panicked = <-done:
		return panicked, true
	case <-ctx.Done():
	}
	select {
	case panicked = <-done:
		return panicked, true
	case <-time.After(probeGrace):
		return "", false
	}
}

// interruption says why ctx ended the run ("" while it goes on): a
// signal, or the run's deadline.
func interruption(ctx context.Context) string {
	switch {
	case ctx.Err() == nil:
		return ""
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		if c := context.Cause(ctx); c != nil && !errors.Is(c, context.DeadlineExceeded) {
			return c.Error()
		}
		return "the run's deadline passed"
	}
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		return c.Error()
	}
	return "the run was cancelled"
}

// runGuarded runs a probe; a panic is the harness's own error, with its stack.
func runGuarded(run func(*packs.Pass), p *packs.Pass) (panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprintf("the probe panicked: %v\n%s", r, debug.Stack())
		}
	}()
	run(p)
	return ""
}

// Close stops the pack's server per the spec and records what outlived it.
func (pr *packRun) Close() {
	if pr.stopped {
		return
	}
	pr.stop()
	pr.stopped = true
}

func (pr *packRun) stop() {
	if pr.stopped {
		return
	}
	pr.stopped = true
	if pr.sess != nil {
		pr.sess.Close()
	}
	if pr.proc == nil { // HTTP: the server outlives the pack's session
		pr.e.mu.Lock()
		if pr.e.running == pr {
			pr.e.running = nil
		}
		pr.e.mu.Unlock()
		return
	}
	st := pr.proc.Stop(pr.e.graces())
	if pr.undo != nil {
		pr.undo()
	}
	pr.sweep()
	pr.e.releaseLifelines()
	pr.e.removeCgroups("pack " + pr.pack.Name)
	pr.e.mu.Lock()
	if pr.e.running == pr {
		pr.e.running = nil
	}
	pr.e.mu.Unlock()
	if len(st.Leftover) > 0 {
		pr.e.warn(fmt.Sprintf("pack %s: %d process(es) of the server's group outlived it and were killed: pids %v", pr.pack.Name, len(st.Leftover), st.Leftover))
	}
	if lost := pr.proc.Log().Lost(); lost > 0 {
		pr.e.loss("serverlog", fmt.Sprintf("pack %s: the server log dropped its oldest %d bytes (only the most recent %d are kept)", pr.pack.Name, lost, len(pr.proc.Log().Bytes())), lost)
	}
	if lost := pr.proc.FramesLost(); lost > 0 {
		pr.e.loss("stdout", fmt.Sprintf("pack %s: %d bytes of stdout evidence were dropped to keep memory bounded", pr.pack.Name, lost), lost)
	}
}
