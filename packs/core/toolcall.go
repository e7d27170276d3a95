package core

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// tools/call error classes: an unknown tool is a protocol error; bad
// arguments are a tool error (or -32602); a huge argument is answered and
// survived. Only tools the sweep called and saw answer are probed, so a
// tool that hung on valid arguments is not blamed twice.

// pickTool returns the first tool this run may call, that answered the
// sweep, and that has a property matching want.
func pickTool(p *packs.Pass, want func(packs.Prop) bool) (packs.Tool, packs.Prop, bool) {
	r := sweep(p)
	for _, t := range p.Surface.Tools {
		if !(p.Active || t.ReadOnly()) || !r.healthy(t.Name) {
			continue
		}
		for _, pr := range packs.Props(t.InputSchema) {
			if want(pr) {
				return t, pr, true
			}
		}
	}
	return packs.Tool{}, packs.Prop{}, false
}

// callFailed reports a tools/call that got no answer, as a crash or a hang,
// and returns true when err was one.
func callFailed(p *packs.Pass, err error, what string) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, packs.ErrClosed) || !p.Server.Alive():
		p.Reportf("the server exited on %s (%s)", what, exitOf(p)).Evidencef("process", "exit: %s", exitOf(p)).Severity = packs.High
	default:
		f := p.Reportf("%s got %s", what, packs.Unanswered(err, p.CallTimeout))
		f.Severity = max(p.Probe.Severity, packs.Medium)
		f.Evidencef("response", "%v", err)
	}
	return true
}

var unknownTool = packs.Probe{
	ID:       "CORE-UNKNOWN-TOOL",
	Name:     "unknown-tool",
	Severity: packs.Low,
	Doc:      "tools/call of a tool the server does not have should be a JSON-RPC protocol error (for example -32602), not a tool result (spec 2025-11-25 server/tools#error-handling)",
	Run: func(p *packs.Pass) {
		if !ready(p) {
			return
		}
		const name = "sealmark_no_such_tool"
		res, err := p.Call(name, nil)
		if callFailed(p, err, "tools/call of an unknown tool") {
			return
		}
		switch {
		case res.Error != nil && res.Error.Code == -32603:
			p.Reportf("tools/call of an unknown tool was answered with %s; -32603 is for real faults, want a protocol error such as -32602", oneLine(res.Brief())).
				Evidencef("response", "tools/call %s: %s", name, oneLine(res.Brief()))
		case res.Error != nil:
			p.Notef("answered %s", oneLine(res.Brief()))
		case res.ToolError():
			p.Reportf("tools/call of an unknown tool was answered with an isError result; the spec makes it a protocol error (-32602)").
				Evidencef("response", "tools/call %s: %s", name, brief(res.Result))
		default:
			f := p.Reportf("tools/call of an unknown tool was answered with a successful result")
			f.Severity = packs.Medium
			f.Evidencef("response", "tools/call %s: %s", name, brief(res.Result))
		}
	},
}

// wrongValue is a value of the wrong type for a property of type typ.
func wrongValue(typ string) any {
	if typ == "string" {
		return 12345
	}
	return "sealmark-not-a-" + typ
}

var simpleTypes = []string{"string", "number", "integer", "boolean", "array", "object"}

// badArgumentTools and badArgumentBudget bound bad-arguments: at most so
// many tools, and no new tool once the budget (in call timeouts) is spent.
// badArgumentOmitted bounds how many of a tool's required arguments are
// each left out in turn (the others given) when it has two or more.
const (
	badArgumentTools   = 32
	badArgumentBudget  = 6
	badArgumentOmitted = 8
)

var badArguments = packs.Probe{
	ID:       "CORE-BAD-ARGUMENTS",
	Name:     "bad-arguments",
	Severity: packs.Medium,
	CWE:      "CWE-20",
	Doc:      "tools/call with missing or wrong-typed arguments must be refused with an isError result or -32602, without a crash, a hang or -32603 (spec 2025-11-25 server/tools#error-handling); every tool that may be called, answered the sweep and has a required argument of a JSON type is tried, up to 32 tools, with no arguments, one of the wrong type, and each required one left out in turn (up to 8) when it has two or more",
	Run: func(p *packs.Pass) {
		if !ready(p) {
			return
		}
		r := sweep(p)
		type target struct {
			tool packs.Tool
			prop packs.Prop
		}
		var targets []target
		for _, t := range p.Surface.Tools {
			if !(p.Active || t.ReadOnly()) || !r.healthy(t.Name) {
				continue
			}
			props := packs.Props(t.InputSchema)
			if i := slices.IndexFunc(props, func(pr packs.Prop) bool { return pr.Required && slices.Contains(simpleTypes, pr.Type) }); i >= 0 {
				targets = append(targets, target{t, props[i]})
			}
		}
		if len(targets) == 0 {
			p.NotApplicable("no tool that may be called and answered the sweep has a required argument of a JSON type")
			return
		}
		if len(targets) > badArgumentTools {
			p.Notef("%d tools qualify; the first %d are tried", len(targets), badArgumentTools)
			targets = targets[:badArgumentTools]
		}
		deadline := time.Now().Add(badArgumentBudget * p.CallTimeout)
		for i, tg := range targets {
			if time.Now().After(deadline) || p.Ctx.Err() != nil {
				p.Notef("%d of %d tools not tried: the probe's time (%s) was spent", len(targets)-i, len(targets), badArgumentBudget*p.CallTimeout)
				break
			}
			if !badArgumentCalls(p, tg.tool, tg.prop) {
				return
			}
		}
	},
}

// badArgumentCalls calls t with no arguments, with pr of the wrong type,
// and, when t has two or more required arguments, with each of them (up
// to badArgumentOmitted) left out and the rest given (drop_table without
// its confirm), and judges the answers; it returns false when the server
// stopped answering, so no further tool is tried.
func badArgumentCalls(p *packs.Pass, t packs.Tool, pr packs.Prop) bool {
	wrong, _ := packs.Arguments(t.InputSchema, p.Token, map[string]any{pr.Name: wrongValue(pr.Type)})
	type call struct {
		what string
		args map[string]any
	}
	calls := []call{
		{"no arguments", map[string]any{}},
		{pr.Name + " of the wrong type (" + pr.Type + " expected)", wrong},
	}
	var required []string
	for _, q := range packs.Props(t.InputSchema) {
		if q.Required {
			required = append(required, q.Name)
		}
	}
	if len(required) >= 2 {
		slices.Sort(required) // the schema's map order is no order
		if len(required) > badArgumentOmitted {
			p.Notef("%s has %d required arguments; the first %d are each left out", t.Name, len(required), badArgumentOmitted)
			required = required[:badArgumentOmitted]
		}
		for _, name := range required {
			args, _ := packs.Arguments(t.InputSchema, p.Token, nil)
			delete(args, name)
			calls = append(calls, call{"only its required " + name + " left out", args})
		}
	}
	for _, c := range calls {
		what := "tools/call " + t.Name + " with " + c.what
		res, err := p.Call(t.Name, c.args)
		if callFailed(p, err, what) {
			return false
		}
		switch {
		case res.Error != nil && res.Error.Code == -32603:
			f := p.Reportf("%s was answered with %s; -32603 is for real faults, want an isError result or -32602", what, oneLine(res.Brief()))
			f.Severity = packs.Low
			f.Evidencef("response", "%s: %s", what, oneLine(res.Brief()))
		case res.Refused():
			p.Notef("%s: refused with %s", what, outcome(res))
		default:
			p.Notef("%s: accepted (the tool ran)", what)
		}
	}
	return true
}

// outcome names how a tools/call was answered: "error -32602 (...)", "an
// isError result" or "a result".
func outcome(res *packs.Response) string {
	switch {
	case res.Error != nil:
		return oneLine(res.Brief())
	case res.ToolError():
		return "an isError result"
	}
	return "a result"
}

// largeSize is the size of the large-argument probe's string.
const largeSize = 1 << 20

// largeWait is how many call timeouts the large call may take while the
// server answers other requests; busyWaits is how many such waits it may
// take while the server answers nothing (it is busy reading or parsing).
const (
	largeWait = 2
	busyWaits = 4
)

var largeArgument = packs.Probe{
	ID:       "CORE-LARGE-ARGUMENT",
	Name:     "large-argument",
	Severity: packs.Medium,
	CWE:      "CWE-400",
	Doc:      "tools/call with a 1 MiB string argument must be answered (a result or any error) and the server must keep serving (every request gets a response, spec basic/index; the harness allows two call timeouts, and eight while the server answers nothing else)",
	Run: func(p *packs.Pass) {
		if !ready(p) {
			return
		}
		t, pr, ok := pickTool(p, func(pr packs.Prop) bool { return pr.Type == "string" && pr.Required })
		if !ok {
			t, pr, ok = pickTool(p, func(pr packs.Prop) bool { return pr.Type == "string" })
		}
		if !ok {
			p.NotApplicable("no tool that may be called and answered the sweep has a string argument")
			return
		}
		big := "sealmark-" + p.Token + "-" + strings.Repeat("A", largeSize)
		args, _ := packs.Arguments(t.InputSchema, p.Token, map[string]any{pr.Name: big})
		what := "tools/call " + t.Name + " with a 1 MiB " + pr.Name
		r, ok := largeCall(p, t.Name, args, what)
		if !ok {
			return
		}
		p.Notef("%s: answered with %s", what, outcome(r))
		if err := barrier(p); err != nil {
			broken(p, err, what)
		}
	},
}

// largeCall sends the large call and waits for its answer, telling a server
// that is busy with a megabyte from one that drops the call or stopped
// answering. A call unanswered after the usual wait (two call timeouts) is
// followed by a liveness request: a server that answers it but not the call
// dropped the call; one that answers neither is busy (a server reads its
// input in order) and gets up to busyWaits times the wait in all, so that a
// loaded machine is not taken for a hung server. It reports a crash, a
// dropped call, a hang and a stuck write, and returns false; a late answer
// is noted and returned.
func largeCall(p *packs.Pass, tool string, args map[string]any, what string) (*packs.Response, bool) {
	type result struct {
		res *packs.Response
		err error
	}
	wait := largeWait * p.CallTimeout
	ceiling := busyWaits * wait
	ctx, cancel := context.WithTimeout(p.Ctx, ceiling)
	defer cancel()
	start := time.Now()
	done := make(chan result, 1)
	go func() {
		res, err := p.Server.Request(ctx, "tools/call", map[string]any{"name": tool, "arguments": args})
		done <- result{res, err}
	}()
	var ping chan error
	method := liveness(p)
	ask := time.After(wait)
	exited := func(r result) bool { return r.err != nil && (errors.Is(r.err, packs.ErrClosed) || !p.Server.Alive()) }
	answered := func(r result) (*packs.Response, bool) {
		switch {
		case r.err != nil && p.Ctx.Err() != nil:
			p.Inconclusive("interrupted before %s was answered (%v)", what, p.Ctx.Err())
			return nil, false
		case exited(r):
			p.Reportf("the server exited on %s (%s)", what, exitOf(p)).Evidencef("process", "exit: %s", exitOf(p)).Severity = packs.High
			return nil, false
		case r.err != nil && ctx.Err() == nil:
			p.Reportf("%s failed: %v", what, r.err).Evidencef("response", "%v", r.err)
			return nil, false
		case r.err != nil:
			p.Reportf("%s got no answer within %s, nor did a %s sent after it", what, ceiling, method).
				Evidencef("response", "%v", r.err)
			return nil, false
		}
		if took := time.Since(start); took > wait {
			p.Notef("%s: answered after %s, while the server answered nothing else (busy, not stopped)", what, took.Round(time.Millisecond))
		}
		return r.res, true
	}
	var serving <-chan time.Time // set once the liveness request is answered
	stuck := time.After(ceiling + shortWait(p))
	for {
		select {
		case r := <-done:
			return answered(r)
		case <-ask:
			ping = make(chan error, 1)
			go func() {
				_, err := p.Server.Request(ctx, method, map[string]any{})
				ping <- err
			}()
		case err := <-ping:
			ping = nil
			if err == nil {
				// Give the call's answer, if it is on its way, a moment.
				serving = time.After(shortWait(p) / 2)
			}
		case <-serving:
			cancel()
			<-done
			p.Reportf("%s got no answer within %s, yet a %s sent after it was answered", what, wait, method).
				Evidencef("response", "%s answered, tools/call %s not", method, tool)
			return nil, false
		case <-stuck:
			// Neither request returned, even at its deadline: the writes
			// themselves are stuck, the server stopped reading its stdin.
			_ = p.Server.CloseStdin()
			<-done
			p.Reportf("%s was not taken within %s: the server stopped reading its stdin", what, ceiling+shortWait(p)).
				Evidencef("process", "the write of the request did not complete")
			return nil, false
		}
	}
}
