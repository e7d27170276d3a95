package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/environ"
	"github.com/sealmark/sealmark/internal/netguard"
	"github.com/sealmark/sealmark/internal/session"
	"github.com/sealmark/sealmark/packs"
)

// openHTTP gives a pack its own MCP session with the HTTP server, starting
// the server first when the run starts it (once for the whole run).
func (e *Engine) openHTTP(ctx context.Context, pr *packRun, first bool) error {
	target, err := environ.Expand(e.cfg.URL, e.vars)
	if err != nil {
		return e.startError(pr, fmt.Errorf("server.url: %v", err))
	}
	if err := netguard.CheckURL(target); err != nil {
		return e.startError(pr, fmt.Errorf("server.url: %v", err))
	}
	canaries := first
	if e.cfg.Start != "" && e.httpProc != nil && e.httpStale(pr.vars) {
		// The one server cannot serve a start of other values (the db
		// pack's writer {dsn}): it is replaced by one started with them,
		// holding the canaries if the one it replaces did.
		canaries = e.httpCanaries
		e.replaceHTTP()
	}
	if e.cfg.Start != "" && e.httpProc == nil {
		line, err := environ.Expand(e.cfg.Start, pr.vars)
		if err != nil {
			return e.startError(pr, fmt.Errorf("server.start: %v", err))
		}
		fields, err := splitCommand(line)
		if err != nil || len(fields) == 0 {
			return e.startError(pr, fmt.Errorf("server.start %q: %v", e.cfg.Start, err))
		}
		proc, err := e.launch(pr, canaries, fields[0], fields[1:])
		if err != nil {
			return err
		}
		e.httpProc, e.httpVars, e.httpCanaries = proc, maps.Clone(pr.vars), canaries
		e.httpUndo = cleanup.Add(proc.KillWait)
		go func() { _, _ = io.Copy(io.Discard, proc.Messages()) }() // its stdout is a log, not MCP
		if err := waitListening(ctx, target, proc.Done()); err != nil {
			switch {
			case errors.Is(err, errStartExited):
				// How it ended and when, as for a stdio server.
				err = fmt.Errorf("the server %s after %s before %s accepted connections",
					exitWords(proc.ExitStatus()), shortDuration(time.Since(pr.started)), listenAddr(target))
			case errors.Is(err, errStartSilent) && errors.Is(ctx.Err(), context.DeadlineExceeded):
				err = fmt.Errorf("nothing listened on %s within %s: raise timeouts.start (--timeout) if the server needs longer to start",
					listenAddr(target), e.cfg.StartTimeout)
			}
			return e.startError(pr, fmt.Errorf("server.start: %v", err))
		}
	} else if first && e.cfg.Start == "" {
		e.warn("--url alone: the harness started nothing, so the server holds no canary secret and secret-echo is not covered; packs that need the server's process or files are not applicable")
	}
	headers := map[string]string{}
	for _, h := range e.cfg.Headers {
		v, err := environ.Expand(h.Value, e.vars)
		if err != nil {
			return e.startError(pr, fmt.Errorf("server.headers %s: %v", h.Name, err))
		}
		headers[h.Name] = v
	}
	sess, err := session.OpenHTTP(target, headers, e.httpProc, e.cfg.CallTimeout)
	if err != nil {
		return e.startError(pr, fmt.Errorf("server.url: %v", err))
	}
	pr.sess = sess
	return nil
}

// What waitListening saw: the started server exited, or nothing listened
// in time.
var (
	errStartExited = errors.New("the server exited")
	errStartSilent = errors.New("nothing listened")
)

// listenAddr is the host:port of an HTTP URL, the URL itself when it does
// not parse.
func listenAddr(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// waitListening waits until the URL's host:port accepts a TCP connection,
// the process exits, or ctx ends.
func waitListening(ctx context.Context, target string, exited <-chan struct{}) error {
	u, err := url.Parse(target)
	if err != nil {
		return err
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	d := netguard.Dialer(time.Second)
	for {
		if c, err := d.DialContext(ctx, "tcp", addr); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("%w before %s accepted connections", errStartExited, addr)
		case <-ctx.Done():
			return fmt.Errorf("%w: %s did not accept connections in time", errStartSilent, addr)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// splitCommand splits a command line on spaces; single or double quotes
// group words. No shell runs it.
func splitCommand(line string) ([]string, error) {
	var out []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("an unclosed %c quote", quote)
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// httpStale reports whether the started HTTP server was started with
// other values than vars give a placeholder that its configuration names
// (server.start, server.env, server.files): a start of values of its own,
// as the db pack's writer start with its role's {dsn}, needs a server
// started with them, or it would meet the reader's server.
func (e *Engine) httpStale(vars map[string]string) bool {
	for k := range maps.Keys(vars) {
		if e.httpVars[k] != vars[k] && e.cfg.mentions("{"+k+"}") {
			return true
		}
	}
	for k := range maps.Keys(e.httpVars) {
		if _, ok := vars[k]; !ok && e.cfg.mentions("{"+k+"}") {
			return true
		}
	}
	return false
}

// replaceHTTP stops the started HTTP server between two starts, as the
// run's end does, so the next start launches one of its own.
func (e *Engine) replaceHTTP() {
	e.stopHTTP()
	if e.watch != nil && e.watch.process != nil {
		_, grace := e.graces()
		if recs := e.watch.process.Sweep(grace); len(recs) > 0 {
			e.mu.Lock()
			e.rep.Timeline = append(e.rep.Timeline, recs...)
			e.mu.Unlock()
			e.warn(fmt.Sprintf("%d process(es) of the run outlived the started HTTP server and were stopped", len(recs)))
		}
	}
	e.releaseLifelines()
	e.removeCgroups("the started HTTP server")
	e.httpProc, e.httpUndo, e.httpVars = nil, nil, nil
}

// stopHTTP stops the server the run started for its URL.
func (e *Engine) stopHTTP() {
	if e.httpProc == nil {
		return
	}
	st := e.httpProc.Stop(e.graces())
	if e.httpUndo != nil {
		e.httpUndo()
	}
	if len(st.Leftover) > 0 {
		e.warn(fmt.Sprintf("the started HTTP server left %d process(es) of its group; they were killed: pids %v", len(st.Leftover), st.Leftover))
	}
}

// httpTarget is the pack's HTTP endpoint for raw probes, or nil for stdio.
func (pr *packRun) httpTarget() *packs.HTTPTarget {
	h, ok := pr.sess.(*session.HTTP)
	if !ok {
		return nil
	}
	return &packs.HTTPTarget{URL: h.URL(), Headers: h.Headers(), Client: netguard.Client(pr.callBound()),
		Started: pr.e.httpProc != nil, SessionID: h.SessionID()}
}
