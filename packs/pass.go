package packs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/pin"
	"github.com/sealmark/sealmark/observers"
)

// Observations is how a probe reads what the observers saw.
type Observations interface {
	// Probe collects now and returns everything seen during this probe so far.
	Probe() []observers.Record
	// Pack returns everything seen since this pack's server started,
	// this probe's records included.
	Pack() []observers.Record
	// Survivors lists the run's processes still alive, other than the
	// server's own leader, as process records.
	Survivors() []observers.Record
}

// Pass is what the engine hands one probe: the server, the sandbox, the
// probe's token and the place its verdict goes. A probe that reports nothing
// passes.
type Pass struct {
	Ctx     context.Context
	Probe   *Probe
	Token   string // fresh and random for every probe; embed it in what the probe sends
	Server  Server
	Surface *Surface
	// First is the surface of the run's first start (Surface itself on
	// that start), to compare a later start with (Pack.Restarted).
	First   *Surface
	Sandbox *Sandbox // nil when the run has no sandbox
	// HTTP is the HTTP server's endpoint, for probes that need raw
	// requests (status codes, headers); nil for a stdio server.
	HTTP *HTTPTarget
	// Vars are the run's placeholder values by name, without braces:
	// sandbox, sandbox_home, cwd, port, listener, upstream (those the run
	// has). The probe's own token is Token.
	Vars map[string]string
	// Listener6 is the loopback listener's URL on [::1] ("http://[::1]:PORT",
	// a port of its own), "" when IPv6 loopback is unavailable or the run
	// has no observers.
	Listener6 string
	// Install is the server's own install directory: the package directory
	// holding its entry script (the nearest package.json, pyproject.toml,
	// Cargo.toml or go.mod above it), else the directory of the script or
	// program; "" when it cannot be told (an HTTP server the run did not
	// start). Reports show it as {install}.
	Install string
	// Canaries are the secrets planted in this start's environment (empty
	// on starts that get none).
	Canaries []Secret
	// Active is true when probes that change state may run.
	Active bool
	// CallTimeout bounds one request.
	CallTimeout time.Duration
	// Scale is 1 on a probe's first attempt and larger on the one retry of
	// a probe that ended inconclusive for time (TimedOut, Slow): the
	// engine multiplies CallTimeout and the probe's deadline by it, and a
	// probe multiplies its own fixed waits by it. 0 means 1.
	Scale int
	// Shared holds values that the probes of one start share (memoized
	// work such as the tool sweep). Keys are the owning pack's business.
	Shared map[string]any
	// Observed is what the observers saw; nil when the run has none (no
	// sandbox, or a platform without them).
	Observed Observations
	// Lock is the tool lock the run compares the tool list with
	// (sealmark pin writes it; lock:, --lock, or sealmark.lock.json beside
	// sealmark.yaml), nil when the run has none.
	Lock *pin.Lock
	// Redact masks the run's secrets in s and replaces its real paths and
	// tokens by their stable names ({sandbox}, {token}, ...), as every
	// output does; nil leaves s as it is.
	Redact func(s string) string

	findings     []*Finding
	positions    []string // where each of findings was reported
	notes        []string
	verdict      Verdict
	reason       string
	requestCount int
	timedOut     int // requests that got no answer within CallTimeout
}

// HTTPTarget is an HTTP server as raw probes reach it.
type HTTPTarget struct {
	URL     string            // the MCP endpoint, a loopback URL
	Headers map[string]string // the configured headers, sent with every raw request too
	Client  *http.Client      // reaches loopback only, follows no redirect
	// Started is true when the harness started the server (--start), so
	// its listening sockets belong to the run.
	Started bool
	// SessionID is the pack session's id, "" when the server uses none.
	SessionID string
}

// Reportf records a finding at the probe's severity and returns it so the
// caller can attach evidence. It records where it was called too, the
// line go test shows the finding at (Positions).
func (p *Pass) Reportf(format string, args ...any) *Finding {
	f := &Finding{Severity: p.Probe.Severity, Message: fmt.Sprintf(format, args...), CWE: p.Probe.CWE}
	p.findings = append(p.findings, f)
	p.positions = append(p.positions, reporter())
	return f
}

// Positions maps the message of each finding the probe reported to the
// source line of the Reportf call that recorded it ("secrets.go:32", the
// base name, as go test prints it); the engine shows the finding there.
// Of two findings with one message, the first one's line is kept.
func (p *Pass) Positions() map[string]string {
	out := make(map[string]string, len(p.findings))
	for i, f := range p.findings {
		if _, ok := out[f.Message]; !ok && p.positions[i] != "" {
			out[f.Message] = p.positions[i]
		}
	}
	return out
}

// reporter is the source line that called Reportf: the first caller
// outside this package (a helper here that reports for a probe is not the
// probe's line), "" when the stack cannot be read.
func reporter() string {
	pcs := make([]uintptr, 16)
	n := runtime.Callers(3, pcs) // runtime.Callers, reporter, Reportf
	frames := runtime.CallersFrames(pcs[:n])
	for {
		fr, more := frames.Next()
		if fr.Function != "" && !strings.HasPrefix(fr.Function, thisPackage) {
			return fmt.Sprintf("%s:%d", filepath.Base(fr.File), fr.Line)
		}
		if !more {
			return ""
		}
	}
}

// thisPackage prefixes the qualified names of this package's functions
// (and of no sub-package's: theirs go on with a slash).
const thisPackage = "github.com/sealmark/sealmark/packs."

// Evidencef attaches evidence to a finding.
func (f *Finding) Evidencef(observer, format string, args ...any) *Finding {
	f.Evidence = append(f.Evidence, Evidence{Observer: observer, Detail: fmt.Sprintf(format, args...)})
	return f
}

// NotApplicable marks the probe not applicable with the reason. The probe
// should return after calling it.
func (p *Pass) NotApplicable(format string, args ...any) {
	p.verdict, p.reason = NotApplicable, fmt.Sprintf(format, args...)
}

// Inconclusive marks the probe inconclusive (a control failed, a call timed
// out, an observer lost data) with the reason.
func (p *Pass) Inconclusive(format string, args ...any) {
	p.verdict, p.reason = Inconclusive, fmt.Sprintf(format, args...)
}

// Notef records what the probe checked, for the report and go test -v.
func (p *Pass) Notef(format string, args ...any) {
	p.notes = append(p.notes, fmt.Sprintf(format, args...))
}

// Request sends a request bounded by CallTimeout.
func (p *Pass) Request(method string, params any) (*Response, error) {
	return p.request(p.CallTimeout, method, params)
}

// request sends a request bounded by d.
func (p *Pass) request(d time.Duration, method string, params any) (*Response, error) {
	ctx, cancel := context.WithTimeout(p.Ctx, d)
	defer cancel()
	p.requestCount++
	resp, err := p.Server.Request(ctx, method, params)
	if err != nil && p.Ctx.Err() != nil && !errors.Is(err, ErrInterrupted) {
		// The probe's or the run's own end, not the server's silence.
		err = fmt.Errorf("%s: %w (%v)", method, ErrInterrupted, err)
	}
	if errors.Is(err, ErrNoAnswer) {
		p.timedOut++
	}
	return resp, err
}

// TimedOut reports whether a request of this probe got no answer within
// CallTimeout. The engine runs a probe that ended inconclusive with one
// once more, with a longer CallTimeout.
func (p *Pass) TimedOut() bool { return p.timedOut > 0 }

// Slow marks the probe's inconclusive verdict as one of time: the server
// (or the loaded machine under it) took longer than a wait of the probe's
// own, so the engine runs it once more with Scale larger, as it does
// after a request got no answer.
func (p *Pass) Slow() { p.timedOut++ }

// Scaled is d multiplied by Scale: a probe's own fixed wait on this
// attempt.
func (p *Pass) Scaled(d time.Duration) time.Duration { return d * time.Duration(max(p.Scale, 1)) }

// Call calls a tool with the given arguments, bounded by CallTimeout.
func (p *Pass) Call(tool string, args map[string]any) (*Response, error) {
	return p.CallWithin(p.CallTimeout, tool, args)
}

// CallWithin calls a tool as Call does, bounded by d instead, never less
// than CallTimeout: for a call whose answer a probe knows to take longer
// on this server (it asks the tool for a timeout of its own, and measured
// how long the same tool takes to answer a command that ends at once).
// Its no answer counts for TimedOut as Call's does.
func (p *Pass) CallWithin(d time.Duration, tool string, args map[string]any) (*Response, error) {
	if args == nil {
		args = map[string]any{}
	}
	return p.request(max(d, p.CallTimeout), "tools/call", map[string]any{"name": tool, "arguments": args})
}

// Outcome is the verdict, the reason for it, the findings and the notes a
// probe left. The engine reads it after Run returns.
func (p *Pass) Outcome() (v Verdict, reason string, findings []Finding, notes []string) {
	for _, f := range p.findings {
		findings = append(findings, *f)
	}
	switch {
	case len(findings) > 0:
		// A finding outranks inconclusive: what was seen was seen.
		v = Failed
	case p.verdict != "":
		v = p.verdict
	default:
		v = Passed
	}
	return v, p.reason, findings, p.notes
}
