package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/session"
	"github.com/sealmark/sealmark/packs"
)

// handshake completes a start's handshake. The run's first start finds
// the server's era (session negotiate: server/discover alone until it is
// answered or its bound passes); a later start uses the era the first
// found, sending nothing of the other era (a modern server gets
// server/discover alone, a legacy one that ignored it gets initialize
// alone, one that refused it the same negotiation as the first). A server
// that answered both eras on one connection is started afresh for a clean
// modern session, with a start bound of its own (fresh, for what follows
// the handshake: nil without a fresh start; the caller cancels it), and the
// report's warnings say so. run is the run's context, ctx the start's.
func (e *Engine) handshake(run, ctx context.Context, pr *packRun, first bool) (in packs.Init, fresh context.Context, cancel context.CancelFunc, err error) {
	e.mu.Lock()
	known := ""
	if e.surface != nil {
		known = session.Era(e.surface.Init.Version)
	}
	ignored := e.discoverIgnored
	e.mu.Unlock()
	switch {
	case known == session.EraModern || known == session.EraLegacy && ignored:
		in, err = pr.sess.InitializeAs(ctx, known, session.LegacyVersion)
		return in, nil, nil, err
	}
	in, err = pr.sess.Initialize(ctx, session.LegacyVersion)
	neg := pr.sess.Negotiated()
	if first && err == nil && neg.DiscoverUnanswered {
		e.mu.Lock()
		e.discoverIgnored = true
		e.mu.Unlock()
		e.warn(fmt.Sprintf("server/discover got no answer within %s, so the server was taken for a legacy one (protocol %s); later starts send it initialize alone",
			shortDuration(neg.Waited), in.Version))
	}
	if !errors.Is(err, session.ErrBothEras) {
		return in, nil, nil, err
	}
	if rerr := e.restart(pr, first); rerr != nil {
		return in, nil, nil, rerr
	}
	fresh, cancel = context.WithTimeout(run, e.cfg.StartTimeout)
	wctx, endWatch := e.watchStart(fresh) // the fresh process's egress during its start
	in, err = pr.sess.InitializeAs(wctx, session.EraModern, session.LegacyVersion)
	endWatch()
	if err != nil {
		return in, fresh, cancel, fmt.Errorf("a fresh start for a clean modern session, after the server answered both eras: %w", err)
	}
	e.warn(fmt.Sprintf("pack %s: server/discover was answered only after %s, when the legacy initialize had gone out too, and the server answered both: "+
		"a dual-era server may settle into either era on such a connection, so the server was started afresh and sent server/discover alone, for a clean modern session",
		pr.pack.Name, shortDuration(neg.Waited)))
	return in, fresh, cancel, nil
}

// restart replaces a start's session with a fresh one: a fresh process
// over stdio, a fresh session on the one server over HTTP.
func (e *Engine) restart(pr *packRun, first bool) error {
	if pr.proc == nil {
		pr.sess.Close()
		return e.openHTTP(context.Background(), pr, false)
	}
	pr.stop()
	pr.stopped = false
	pr.canaries, pr.hostArg = nil, nil
	return e.launchRunning(pr, first)
}

// launchRunning launches the server for a start over stdio, opens its
// session and makes it the running start.
func (e *Engine) launchRunning(pr *packRun, first bool) error {
	proc, err := e.launch(pr, first, e.cfg.Command, e.cfg.Args)
	if err != nil {
		return err
	}
	pr.proc = proc
	pr.undo = cleanup.Add(proc.KillWait)
	pr.sess = session.Open(proc)
	e.mu.Lock()
	e.running = pr
	e.mu.Unlock()
	return nil
}

// relaunchExited starts afresh the stdio server of a pack that asks for it
// (packs.Pack.Relaunch) when it has exited during an earlier probe: a
// fresh process with the same surface and shared values, its handshake
// done in the era the run found. A relaunch that fails leaves the start
// as it was (a dead server for the probes after it) and says why in the
// report's warnings.
func (e *Engine) relaunchExited(ctx context.Context, pr *packRun) {
	if !pr.pack.Relaunch || pr.proc == nil || pr.sess == nil || pr.sess.Alive() || ctx.Err() != nil || pr.abandonedWhy() != "" {
		return
	}
	status := pr.proc.ExitStatus()
	err := e.restart(pr, false)
	if err == nil {
		sctx, cancel := context.WithTimeout(ctx, e.cfg.StartTimeout)
		ictx, endWatch := e.watchStart(sctx)
		_, err = pr.sess.InitializeAs(ictx, session.Era(pr.surface.Init.Version), session.LegacyVersion)
		endWatch()
		cancel()
	}
	if err != nil {
		e.warn(fmt.Sprintf("pack %s: the server exited (%s) and a fresh start failed: %s", pr.pack.Name, status, e.Redact(err.Error())))
	}
}
