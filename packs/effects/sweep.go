package effects

import (
	"fmt"
	"strings"
	"time"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// quiet is how long the sweep keeps watching after its last call, for a
// server that goes on trying the network when no call is running.
var quiet = time.Second

// maxSweep bounds the tools one sweep calls: each call costs a round trip
// and the observers' collection (70–85 ms a call on a loaded machine), and
// a server that lists thousands of tools must not make the run grow with
// them. No real server of the calibration lists more than 118 tools.
const maxSweep = 128

// sweepResult is every eligible tool called once, with what each call
// did; the sweep's probes share it through Pass.Shared.
type sweepResult struct {
	calls   []*call
	skipped []string           // tools not called, with why
	capped  []string           // callable tools left out for maxSweep
	after   []observers.Record // seen in the quiet window after the last call
	egress  bool               // the egress observer watched this start
	token   string             // the token the sweep's arguments carry
}

const sweepKey = "effects.sweep"

// sweep calls each read-only tool (every tool on an active run) once with
// arguments synthesized from its schema, a URL argument getting a URL on
// the upstream stub, and keeps what the observers saw during each call. It
// runs once per start, in the first probe that asks.
func sweep(p *packs.Pass) *sweepResult {
	if r, ok := p.Shared[sweepKey].(*sweepResult); ok {
		return r
	}
	r := &sweepResult{token: p.Token}
	p.Shared[sweepKey] = r
	if p.Observed == nil {
		return r
	}
	for _, rec := range p.Observed.Pack() {
		if rec.Observer == "egress" {
			r.egress = true
		}
	}
	urls := map[string]bool{}
	for _, t := range targets(p.Surface) {
		for _, a := range t.urls {
			urls[t.tool.Name+"\x00"+a] = true
		}
	}
	cl := newCaller(p, true)
	var eligible []packs.Tool
	for _, t := range p.Surface.Tools {
		switch {
		case t.Name == "":
			continue
		case !p.Active && !t.ReadOnly():
			r.skipped = append(r.skipped, t.Name+" (may change state: runs with --active)")
			continue
		}
		eligible = append(eligible, t)
	}
	eligible, r.capped = sample(eligible, maxSweep)
	for _, t := range eligible {
		switch {
		case !p.Server.Alive():
			r.skipped = append(r.skipped, t.Name+" (the server had exited)")
			continue
		}
		fill := map[string]any{}
		for key := range urls {
			if tool, arg, _ := strings.Cut(key, "\x00"); tool == t.Name {
				fill[arg] = p.Vars["upstream"] + "/sealmark-sweep/" + p.Token
			}
		}
		for _, name := range durations(t) {
			fill[name] = 1 // a slow tool is asked to be quick
		}
		args, _ := packs.Arguments(t.InputSchema, p.Token, fill)
		c := cl.do(t, args, nil)
		c.shown = describeArgs(t.Name, args)
		r.calls = append(r.calls, c)
	}
	for _, c := range r.calls {
		for _, rec := range c.recs {
			if rec.Observer == "egress" {
				r.egress = true
			}
		}
	}
	wait := quiet
	if !r.egress {
		wait = settle // without the egress observer no retry can be seen
	}
	if len(r.calls) > 0 {
		r.after = cl.finish(wait, nil, true)
	}
	return r
}

// sample keeps at most limit tools, in listing order, preferring one tool
// of each input schema: a list padded with thousands of tools of one shape
// still has every distinct shape called. It returns the rest apart.
func sample(ts []packs.Tool, limit int) (kept []packs.Tool, left []string) {
	if len(ts) <= limit {
		return ts, nil
	}
	seen := map[string]bool{}
	first := make([]bool, len(ts))
	n := 0
	for i, t := range ts {
		shape := string(t.InputSchema)
		if !seen[shape] && n < limit {
			seen[shape], first[i] = true, true
			n++
		}
	}
	for i := range ts {
		if !first[i] && n < limit {
			first[i] = true
			n++
		}
	}
	for i, t := range ts {
		if first[i] {
			kept = append(kept, t)
		} else {
			left = append(left, t.Name)
		}
	}
	return kept, left
}

// swept runs the sweep for a probe and marks the probe not applicable when
// no tool could be called; nil then.
func swept(p *packs.Pass) *sweepResult {
	if p.Observed == nil {
		p.NotApplicable("no observers on this run (no sandbox)")
		return nil
	}
	r := sweep(p)
	if len(r.calls) == 0 {
		p.NotApplicable("no tool to call: %d tools, none read-only (%s)", len(p.Surface.Tools), strings.Join(r.skipped, "; "))
		return nil
	}
	if len(r.capped) > 0 {
		p.Notef("the sweep called %d tools, at most %d a start (one of each input schema first); %d not tried: %s",
			len(r.calls), maxSweep, len(r.capped), namesUpTo(r.capped, 20))
	}
	return r
}

// namesUpTo joins at most n names and counts the rest.
func namesUpTo(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// of returns a call's records of one kind.
func of(recs []observers.Record, kind string) []observers.Record {
	var out []observers.Record
	for _, r := range recs {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}
