package engine

import (
	"time"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// A start of a stdio server that a pack is done with may be held for the
// next pack instead of stopped: core's drift check's start, or that of a
// pack that shares (packs.Pack.SharesStart). The next pack that shares
// runs on it as on a start of its own (a report entry of its own, a fresh
// Pass.Shared, the observers' records from the server's start up to the
// first probe on it), and any other pack's start, or the run's end, stops
// it first: one server runs at a time, as without sharing.

// hold keeps pr's server running for the next pack that shares one, when
// it can be handed on; else it stops it. handable is the pack's say: it
// shares, or pr is the start of its Restarted probes.
func (e *Engine) hold(pr *packRun, handable bool) {
	if !handable || e.cfg.FreshStarts || pr.proc == nil || pr.sess == nil || pr.stopped ||
		!pr.sess.Alive() || pr.abandonedWhy() != "" || pr.timedOut() {
		pr.Close()
		return
	}
	e.mu.Lock()
	e.held = pr
	e.mu.Unlock()
}

// timedOut reports whether a probe on pr ran out of time (a retry that
// timed out again, or any retry at all): a server that kept the harness
// waiting is not handed on.
func (pr *packRun) timedOut() bool {
	pr.e.mu.Lock()
	defer pr.e.mu.Unlock()
	return pr.hangs || pr.retries > 0
}

// dropHeld stops the held start, if any.
func (e *Engine) dropHeld() {
	e.mu.Lock()
	pr := e.held
	e.held = nil
	e.mu.Unlock()
	if pr != nil {
		pr.Close()
	}
}

// shares reports whether pk may run on the held start: why not, or "".
func (e *Engine) shares(pk packs.Pack) bool {
	e.mu.Lock()
	held := e.held
	e.mu.Unlock()
	switch {
	case held == nil, e.cfg.FreshStarts, !pk.SharesStart, pk.Starts != nil, pk.Canaries, pk.Relaunch:
		return false
	case pk.GitLayout && !held.gitReady:
		return false // the layout would be staged under a server started without it
	}
	return held.sess.Alive() && held.abandonedWhy() == ""
}

// takeHeld gives pk the held start as a start of its own, or nil when it
// may not have it (and then stops it: pk starts the server afresh).
func (e *Engine) takeHeld(pk packs.Pack) *packRun {
	if !e.shares(pk) {
		e.dropHeld()
		return nil
	}
	e.mu.Lock()
	held := e.held
	e.held = nil
	e.mu.Unlock()
	seen := held.startup()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.rep.Packs = append(e.rep.Packs, report.Pack{Name: pk.Name, Doc: pk.Doc, User: pk.User, SharedStart: held.startOf})
	pr := &packRun{
		e: e, pack: pk, proc: held.proc, sess: held.sess, surface: held.surface, shared: map[string]any{},
		vars: held.vars, idx: len(e.rep.Packs) - 1, undo: held.undo, started: held.started, lat: held.lat,
		hostArg: held.hostArg, recent: held.recent, gitReady: held.gitReady, startOf: held.startOf, seen: seen,
	}
	held.undo, held.stopped = nil, true // its server is pr's now
	e.running = pr
	return pr
}

// startup is what the observers saw of pr's server from its start up to
// the first probe on it (all of it when no probe ran): what a pack on a
// fresh start would find in Pass.Observed.Pack() before its own probes.
// It first collects what no probe owns, as Pass.Observed.Pack() does.
func (pr *packRun) startup() []observers.Record {
	if w := pr.e.watch; w != nil {
		var between []observers.Record
		for _, o := range w.all {
			between = append(between, o.Collect("")...)
		}
		if len(between) > 0 {
			pr.addSeen(between)
			pr.e.toTimeline(between)
		}
	}
	pr.seenMu.Lock()
	defer pr.seenMu.Unlock()
	var out []observers.Record
	for _, r := range pr.seen {
		if pr.firstProbe.IsZero() || r.Time.Before(pr.firstProbe) {
			out = append(out, r)
		}
	}
	return out
}

// probeBegun notes when the first probe on pr began (startup's bound).
func (pr *packRun) probeBegun() {
	pr.seenMu.Lock()
	if pr.firstProbe.IsZero() {
		pr.firstProbe = time.Now()
	}
	pr.seenMu.Unlock()
}
