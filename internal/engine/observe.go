package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/observers/files"
	"github.com/sealmark/sealmark/observers/limits"
	"github.com/sealmark/sealmark/observers/loopback"
	"github.com/sealmark/sealmark/observers/process"
	"github.com/sealmark/sealmark/observers/size"
	"github.com/sealmark/sealmark/observers/sockets"
	"github.com/sealmark/sealmark/observers/upstream"
	"github.com/sealmark/sealmark/packs"
)

// Observe makes one observer of the run once its sandbox is made
// (Config.Observers), given the sandbox's directories. Its error stops the
// run before anything starts, as a built-in observer's does.
type Observe func(sb *packs.Sandbox) (observers.Observer, error)

// watch is the run's observers. It exists only with a sandbox.
type watch struct {
	all      []observers.Observer
	loopback *loopback.Listener
	upstream *upstream.Stub
	process  *process.Observer // nil where /proc is absent
	limits   *limits.Watcher   // each start's cgroup leaf counts the limits it met
	files    *files.Observer
	marker   string   // NAME=VALUE in every server's environment
	notes    []string // what applied and what is weaker, for the sandbox: line
	line     string   // the observers' part of the isolation line
	egress   bool     // the seccomp egress observer watches a start
	undo     func()   // removes closeObservers from the signal-path cleanup
}

// filesObserver is the run's files observer, nil before open.
func (e *Engine) filesObserver() *files.Observer {
	if e.watch == nil {
		return nil
	}
	return e.watch.files
}

// openObservers starts the observers that watch the sandbox and the
// loopback; each one that cannot start is named in the isolation line.
func (e *Engine) openObservers() error {
	w := &watch{}
	e.watch = w
	lb, err := loopback.Listen()
	if err != nil {
		return fmt.Errorf("the loopback listener: %v", err)
	}
	w.loopback = lb
	w.all = append(w.all, lb)
	e.vars["listener"] = lb.URL()
	e.redactor.Stable(lb.URL(), "{listener}")
	if u6 := lb.URL6(); u6 != "" {
		e.redactor.Stable(u6, "{listener6}")
	}

	up, err := upstream.Start(upstream.Options{Redirect: lb.URL() + "/redirected"})
	if err != nil {
		return fmt.Errorf("the upstream stub: %v", err)
	}
	w.upstream = up
	w.all = append(w.all, up)
	e.vars["upstream"] = up.URL()
	e.redactor.Stable(up.URL(), "{upstream}")

	// Staged files may name {listener} or {upstream}; they are written
	// before the files observer's first snapshot, so they are no change.
	if err := e.stageFiles(); err != nil {
		return err
	}
	e.prepareMounts()
	fo, err := files.New(files.Options{Top: e.sb.Top})
	if err != nil {
		return fmt.Errorf("the files observer: %v", err)
	}
	w.all = append(w.all, fo)
	w.files = fo

	w.marker = e.marker
	tracking := []string{"pgid"}
	po, err := process.New(process.Options{Marker: w.marker, Bin: e.sb.Bin, Secrets: e.redactor.String, Infra: contain.IsShim})
	if err != nil {
		w.notes = append(w.notes, "processes not observed: "+err.Error())
	} else {
		w.process = po
		w.all = append(w.all, po)
		tracking = append(tracking, "marker")
		if err := process.EnableSubreaper(); err == nil {
			tracking = append(tracking, "subreaper")
		} else {
			w.notes = append(w.notes, "no subreaper: "+err.Error())
		}
		w.all = append(w.all, sockets.New(po.PIDs))
	}
	w.limits = limits.New(limits.Options{MaxProcs: e.cfg.MaxProcs, MaxMemory: int64(e.cfg.MaxMemoryMiB) << 20})
	w.all = append(w.all, w.limits)
	w.all = append(w.all, size.Start(size.Options{Top: e.sb.Top, MaxBytes: int64(e.cfg.MaxMiB) << 20, OnExceed: e.sizeExceeded, Estimate: fo.Allocated, Quota: e.sb.Quota > 0}))
	for i, observe := range e.cfg.Observers {
		o, err := observe(e.sandboxView())
		if err != nil {
			return fmt.Errorf("observer %d of Config.Observers: %v", i+1, err)
		}
		w.all = append(w.all, o)
	}
	// On a signal the observers stop too: the files observer's watches and
	// its private barrier directory go with them.
	w.undo = cleanup.Add(e.closeObservers)
	names := make([]string, 0, len(w.all)+1)
	for _, o := range w.all {
		names = append(names, o.Name())
	}
	w.line = "tracking=" + strings.Join(tracking, "+") + " observers=" + strings.Join(append(names, "serverlog"), ",")
	if len(w.notes) > 0 {
		w.line += "; " + strings.Join(w.notes, "; ")
	}
	e.rep.Sandbox.Isolation = "procs=pgid; " + w.line
	return nil
}

// sizeExceeded stops the sandbox's processes when it grows past max_mib.
func (e *Engine) sizeExceeded(total int64) {
	e.mu.Lock()
	pr := e.running
	e.sizeHit = true
	e.mu.Unlock()
	if pr != nil && pr.proc != nil {
		pr.proc.Kill()
	}
	fmt.Fprintf(e.cfg.Log, "sealmark: %s: stopped the server\n", e.sizeWords(total))
}

// sizeWords says how the sandbox met max_mib: filled it (a quota refused
// the write past it), or grew past it (sampled), to total bytes.
func (e *Engine) sizeWords(total int64) string {
	if e.sb != nil && e.sb.Quota > 0 {
		return fmt.Sprintf("the sandbox filled sandbox.max_mib (%d MiB): the write past it failed", e.cfg.MaxMiB)
	}
	if total > 0 {
		return fmt.Sprintf("the sandbox grew to %d MiB, past sandbox.max_mib (%d MiB)", total>>20, e.cfg.MaxMiB)
	}
	return fmt.Sprintf("the sandbox grew past sandbox.max_mib (%d MiB)", e.cfg.MaxMiB)
}

// closeObservers stops every observer; what no probe owned goes to the timeline.
func (e *Engine) closeObservers() {
	if e.watch == nil {
		return
	}
	if e.watch.undo != nil {
		e.watch.undo()
	}
	var late []observers.Record
	for _, o := range e.watch.all {
		late = append(late, o.Close()...)
	}
	e.toTimeline(late)
}

// toTimeline adds records no probe owns to the report's timeline, leaving
// out what is the harness's own doing: the server's start as the egress
// observer sees it, and "egress not observed" when it was.
func (e *Engine) toTimeline(recs []observers.Record) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range recs {
		if e.watch != nil && e.watch.egress && r.Kind == observers.KindSocket && r.Data[observers.KeyOp] == "egress-not-observed" {
			continue
		}
		if r.Data[observers.KeyStart] == "true" {
			continue
		}
		e.rep.Timeline = append(e.rep.Timeline, r)
	}
}

// probeView is what one probe reads through Pass.Observed.
type probeView struct {
	pr    *packRun
	token string
	mu    sync.Mutex
	seen  []observers.Record
}

func (v *probeView) Probe() []observers.Record {
	var got []observers.Record
	for _, o := range v.pr.e.watch.all {
		got = append(got, o.Collect(v.token)...)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.seen = append(v.seen, got...)
	v.pr.addSeen(got)
	return append([]observers.Record(nil), v.seen...)
}

// Pack returns everything seen since the start: the probes' records and
// what was seen while no probe was open (a listener opened at start-up, for
// instance), which also goes to the report's timeline.
func (v *probeView) Pack() []observers.Record {
	v.Probe()
	var between []observers.Record
	for _, o := range v.pr.e.watch.all {
		between = append(between, o.Collect("")...)
	}
	if len(between) > 0 {
		v.pr.addSeen(between)
		v.pr.e.toTimeline(between)
	}
	return v.pr.seenSoFar()
}

func (v *probeView) Survivors() []observers.Record {
	po := v.pr.e.watch.process
	if po == nil {
		return nil
	}
	var out []observers.Record
	for _, p := range po.Survivors() {
		if v.pr.proc != nil && p.PID == v.pr.proc.Pid() {
			continue
		}
		argv := make([]string, len(p.Argv))
		for i, a := range p.Argv {
			argv[i] = v.pr.e.redactor.String(a)
		}
		js, _ := json.Marshal(argv)
		out = append(out, observers.Record{
			Kind: observers.KindProcess, Observer: "process", Time: time.Now().UTC(),
			Summary: fmt.Sprintf("pid %d (%s) is alive", p.PID, strings.Join(argv, " ")),
			Data:    map[string]string{observers.KeyOp: "alive", observers.KeyPid: fmt.Sprint(p.PID), observers.KeyPpid: fmt.Sprint(p.PPID), observers.KeyExe: p.Exe, observers.KeyArgv: string(js)},
		})
	}
	return out
}

func (pr *packRun) addSeen(rs []observers.Record) {
	pr.seenMu.Lock()
	pr.seen = append(pr.seen, rs...)
	pr.seenMu.Unlock()
}

func (pr *packRun) seenSoFar() []observers.Record {
	pr.seenMu.Lock()
	defer pr.seenMu.Unlock()
	return append([]observers.Record(nil), pr.seen...)
}

// begin opens a probe on every observer; finish collects what it saw.
func (pr *packRun) begin(token string) *probeView {
	if pr.e.watch == nil {
		return nil
	}
	pr.probeBegun()
	for _, o := range pr.e.watch.all {
		o.Begin(token)
	}
	return &probeView{pr: pr, token: token}
}

func (v *probeView) finish() []observers.Record {
	if v == nil {
		return nil
	}
	return v.Probe()
}

// sweep records and stops what outlived a start.
func (pr *packRun) sweep() {
	w := pr.e.watch
	if w == nil || w.process == nil {
		return
	}
	_, grace := pr.e.graces()
	recs := w.process.Sweep(grace)
	if len(recs) == 0 {
		return
	}
	pr.e.mu.Lock()
	pr.e.rep.Timeline = append(pr.e.rep.Timeline, recs...)
	pr.e.mu.Unlock()
	pr.e.warn(fmt.Sprintf("pack %s: %d process(es) of the run outlived the server and were stopped", pr.pack.Name, len(recs)))
}

// loss records that an observer dropped data, in the timeline and as a warning.
func (e *Engine) loss(observer, summary string, bytes int64) {
	e.mu.Lock()
	e.rep.Timeline = append(e.rep.Timeline, observers.Record{
		Kind: observers.KindLoss, Observer: observer, Time: time.Now().UTC(), Summary: summary,
		Data: map[string]string{observers.KeyBytes: fmt.Sprint(bytes)},
	})
	e.mu.Unlock()
	e.warn(summary)
}
