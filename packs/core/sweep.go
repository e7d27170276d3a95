package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// sweepResult is what calling every eligible tool once found; the probes of
// one start share it through Pass.Shared.
type sweepResult struct {
	called  []string
	skipped []string // tools not called, with why
	crashed string   // the tool whose call ended the server
	hung    []string // tools that did not answer in time
	errs    []string
	// Every call carries a progress token; progress judges what came of them.
	calls []sweepCall
	from  int // the first frame of the sweep
}

// sweepCall is one call of the sweep.
type sweepCall struct {
	tool     string
	token    string          // the call's progress token
	id       json.RawMessage // the request's id, nil when it got no answer
	answered bool
}

// healthy reports whether the sweep saw the tool answer: a tool that hung
// or crashed the server on valid arguments is not probed further.
func (r *sweepResult) healthy(tool string) bool {
	return !slices.Contains(r.hung, tool) && !strings.HasPrefix(r.crashed, tool+" (")
}

const sweepKey = "core.sweep"

// sweep calls each read-only tool (every tool on an active run) once with
// arguments synthesized from its schema, so that what the tools return is
// captured for secret-echo. It runs once per start.
func sweep(p *packs.Pass) *sweepResult {
	if r, ok := p.Shared[sweepKey].(*sweepResult); ok {
		return r
	}
	r := &sweepResult{from: frameMark(p)}
	p.Shared[sweepKey] = r
	for i, t := range p.Surface.Tools {
		if t.Name == "" {
			continue
		}
		if !p.Active && !t.ReadOnly() {
			r.skipped = append(r.skipped, t.Name+" (may change state: runs with --active)")
			continue
		}
		if !p.Server.Alive() {
			r.skipped = append(r.skipped, t.Name+" (the server had exited)")
			continue
		}
		// A schema defect is tools-list's finding. A slow tool is asked to be quick.
		args, _ := packs.Arguments(t.InputSchema, p.Token, sweepFill(t))
		call := sweepCall{tool: t.Name, token: fmt.Sprintf("sealmark-progress-%d", i+1)}
		res, err := p.Request("tools/call", map[string]any{"name": t.Name, "arguments": args, "_meta": map[string]any{"progressToken": call.token}})
		if err == nil {
			call.id, call.answered = res.ID, true
		}
		r.calls = append(r.calls, call)
		r.called = append(r.called, t.Name)
		switch {
		case err != nil && (errors.Is(err, packs.ErrClosed) || !p.Server.Alive()):
			r.crashed = fmt.Sprintf("%s (%s)", t.Name, exitOf(p))
		case errors.Is(err, packs.ErrNoAnswer):
			r.hung = append(r.hung, t.Name)
		case err != nil:
			r.errs = append(r.errs, err.Error())
		case res.Error != nil:
			r.errs = append(r.errs, fmt.Sprintf("%s: %s", t.Name, res.Brief()))
		}
	}
	return r
}

var toolSweep = packs.Probe{
	ID:       "CORE-TOOL-SWEEP",
	Name:     "tool-sweep",
	Severity: packs.Medium,
	CWE:      "CWE-703",
	Doc:      "every read-only tool, called once with valid arguments from its schema, must answer without crashing or hanging the server",
	Run: func(p *packs.Pass) {
		r := sweep(p)
		if len(r.called) == 0 {
			p.NotApplicable("no tool to call: %d tools, none read-only (%v)", len(p.Surface.Tools), r.skipped)
			return
		}
		if r.crashed != "" {
			// Any client's ordinary call takes the server down: high, not the
			// probe's medium (a hang, below, leaves it serving others).
			f := p.Reportf("calling tool %s with valid arguments ended the server", r.crashed).Evidencef("process", "the server exited during tools/call %s", r.crashed)
			f.Severity = packs.High
		}
		for _, name := range r.hung {
			p.Reportf("tool %s did not answer within %s", name, p.CallTimeout).Evidencef("response", "tools/call %s: no answer", name)
		}
		p.Notef("called %v; not called: %v; protocol errors: %v", r.called, r.skipped, r.errs)
	},
}

// exitOf says how the server ended, for a message.
func exitOf(p *packs.Pass) string {
	if st := p.Server.ExitStatus(); st != "" {
		return st
	}
	return "closed its stdout"
}
