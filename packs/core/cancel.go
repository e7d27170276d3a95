package core

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// CancelDuration is how long the cancellation probe asks a slow tool to
// run. The cancellation must be taken (a request after it answered) within
// that time for a late answer to count; a late answer is watched for until
// the tool would have finished, and a second request answered after that.
var CancelDuration = time.Second

// cancelLead is how long the call runs before it is cancelled.
const cancelLead = 100 * time.Millisecond

// durationWords name a parameter that sets how long a tool runs.
var durationWords = []string{"seconds", "second", "secs", "sec", "duration", "delay", "sleep", "wait", "ms", "millis", "millisecond", "milliseconds"}

// slowParam is the parameter that sets how long a tool runs.
type slowParam struct {
	name    string
	ms      bool // the value is in milliseconds
	integer bool
}

// value is the parameter's value for a run of d.
func (s slowParam) value(d time.Duration) any {
	switch {
	case s.ms:
		return max(d.Milliseconds(), 1)
	case s.integer:
		return max(int64(math.Ceil(d.Seconds())), 1)
	}
	return d.Seconds()
}

// slowParamOf finds the parameter of a tool that sets how long it runs: a
// number named like seconds, duration, delay, sleep, wait or ms.
func slowParamOf(t packs.Tool) (slowParam, bool) {
	for _, pr := range packs.Props(t.InputSchema) {
		if pr.Type != "number" && pr.Type != "integer" {
			continue
		}
		words := packs.Words(pr.Name)
		if !slices.ContainsFunc(words, func(w string) bool { return slices.Contains(durationWords, w) }) {
			continue
		}
		ms := slices.ContainsFunc(words, func(w string) bool { return w == "ms" || strings.HasPrefix(w, "milli") }) ||
			strings.Contains(strings.ToLower(pr.Description), "millisecond")
		return slowParam{name: pr.Name, ms: ms, integer: pr.Type == "integer"}, true
	}
	return slowParam{}, false
}

// quickRun is how long the sweep asks a slow tool to run.
const quickRun = 200 * time.Millisecond

// quick fills the duration parameter of a slow tool so that the sweep's
// call of it is short; nil for other tools.
func quick(t packs.Tool) map[string]any {
	if sp, ok := slowParamOf(t); ok {
		return map[string]any{sp.name: sp.value(quickRun)}
	}
	return nil
}

// slowTool is the first tool with a duration parameter that this run may
// call and that answered the sweep.
func slowTool(p *packs.Pass) (packs.Tool, slowParam, bool) {
	r := sweep(p)
	for _, t := range p.Surface.Tools {
		if sp, ok := slowParamOf(t); ok && (p.Active || t.ReadOnly()) && r.healthy(t.Name) {
			return t, sp, true
		}
	}
	return packs.Tool{}, slowParam{}, false
}

var cancellation = packs.Probe{
	ID:       "CORE-CANCELLATION",
	Name:     "cancellation",
	Severity: packs.Low,
	Doc:      "a request cancelled with notifications/cancelled should get no response, and the server must keep serving (spec 2025-11-25 basic/utilities/cancellation)",
	Run: func(p *packs.Pass) {
		if !stdio(p) || !ready(p) {
			return
		}
		t, sp, ok := slowTool(p)
		if !ok {
			p.NotApplicable("no tool to cancel: none that may be called has a duration parameter (a number named like seconds, duration, delay or ms)")
			return
		}
		// Longer on the retry of an attempt the server was too slow for.
		dur := p.Scaled(CancelDuration)
		args, _ := packs.Arguments(t.InputSchema, p.Token, map[string]any{sp.name: sp.value(dur)})
		const id = `"sm-cancel-1"`
		params := map[string]any{"name": t.Name, "arguments": args}
		if modern(p) {
			params["_meta"] = json.RawMessage(metaJSON(p.Surface.Init.Version))
		}
		line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "sm-cancel-1", "method": "tools/call", "params": params})
		if err != nil {
			p.Inconclusive("the arguments of %s cannot be encoded: %v", t.Name, err)
			return
		}
		from := frameMark(p)
		start := time.Now()
		if err := p.Server.WriteRaw(append(line, '\n')); err != nil {
			if errors.Is(err, packs.ErrClosed) || !p.Server.Alive() {
				p.Inconclusive("the server's stdin is closed: %v", err)
			} else {
				p.NotApplicable("needs raw stdin, which this transport does not have: %v", err)
			}
			return
		}
		// Entered so that its answer, however late, is never taken as
		// another raw line's; this probe awaits it by id itself.
		enter(p, rawRequest{line: string(line), ids: ids(id)}, from, start).closed = true
		answer := func(m message) bool { return m.fields["method"] == nil && sameID(m.id(), json.RawMessage(id)) }
		if m := await(p, from, cancelLead, answer); m != nil {
			p.Inconclusive("tools/call %s with %s=%v answered within %s, before it could be cancelled", t.Name, sp.name, sp.value(dur), cancelLead)
			return
		}
		if err := p.Server.Notify(p.Ctx, "notifications/cancelled", map[string]any{"requestId": "sm-cancel-1", "reason": "sealmark cancellation probe"}); err != nil {
			p.Inconclusive("could not send notifications/cancelled: %v", err)
			return
		}
		// A request after the cancellation shows the server has read it (a
		// server reads its stdin in order) and is still serving.
		if err := barrier(p); err != nil {
			broken(p, err, "a cancelled tools/call "+t.Name)
			return
		}
		taken := time.Now()
		takenInTime := taken.Sub(start) < dur
		// The server had read the call by the time it answered the barrier,
		// so a tool that ignored the cancellation ends CancelDuration after
		// that at the latest; a second barrier then lets an answer written
		// at its end arrive first, where a fixed grace would wait whatever
		// the server does.
		m := await(p, from, time.Until(taken.Add(dur)), answer)
		if m == nil {
			if err := barrier(p); err != nil {
				p.Notef("the request after the cancelled call's end got no answer: %v", err)
			}
			m = await(p, from, 0, answer)
		}
		switch {
		case m == nil:
			p.Notef("no answer to the cancelled tools/call %s by the end of its %s", t.Name, dur)
		case !takenInTime:
			p.Inconclusive("the server answered the cancelled tools/call %s, but it took the cancellation only after the call's %s were up", t.Name, dur)
			p.Slow()
		default:
			p.Reportf("tools/call %s was answered after it was cancelled", t.Name).
				Evidencef("stdout", "line %d: %s", m.frame.Seq+1, briefFrame(m.frame, p.Token))
		}
	},
}

var cancelUnknown = packs.Probe{
	ID:       "CORE-CANCEL-UNKNOWN",
	Name:     "cancel-unknown",
	Severity: packs.Medium,
	Doc:      "a notifications/cancelled naming no request in flight should be ignored: the server keeps serving (spec 2025-11-25 basic/utilities/cancellation)",
	Run: func(p *packs.Pass) {
		if !ready(p) {
			return
		}
		if err := p.Server.Notify(p.Ctx, "notifications/cancelled", map[string]any{"requestId": "sm-no-such-request", "reason": "sealmark cancellation probe"}); err != nil {
			p.Inconclusive("could not send notifications/cancelled: %v", err)
			return
		}
		if err := barrier(p); err != nil {
			broken(p, err, "a cancellation of a request that was never sent")
		}
	},
}

// await polls the frames from seq from on until one matches or d passes.
func await(p *packs.Pass, from int, d time.Duration, match func(message) bool) *message {
	deadline := time.Now().Add(d)
	for {
		for _, f := range p.Server.Frames(from) {
			from = f.Seq + 1
			if m := parse(f); match(m) {
				return &m
			}
		}
		if !time.Now().Before(deadline) || p.Ctx.Err() != nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
}
