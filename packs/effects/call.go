package effects

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// settle is how long after a call's answer its effects may still arrive
// and count as the call's.
var settle = 50 * time.Millisecond

// call is one tool call and what the observers saw during it.
type call struct {
	tool       string
	shown      string // tool(arg="value", ...) with the probed arguments
	res        *packs.Response
	err        error
	recs       []observers.Record
	start, end time.Time
}

// text is the call's response as text ("" without one).
func (c *call) text() string {
	return string(c.res.Body())
}

// caller makes a probe's calls one after the other, each with what the
// observers saw from its start until settle after its answer. A record
// that arrives later (a connection the listener was still reading when
// the call answered) goes to the call during which it happened, by its
// time, when finish collects.
type caller struct {
	p     *packs.Pass
	seen  int // records of the probe already given to a call
	calls []*call
	// each collects after every call: the files observer's records carry
	// the time of the collect, not of the change, so only a collect right
	// after the call tells which call changed a file. Without it, finish
	// gives every record to its call by its time.
	each bool
}

func newCaller(p *packs.Pass, each bool) *caller {
	c := &caller{p: p, each: each}
	if p.Observed != nil {
		c.seen = len(p.Observed.Probe()) // what came before the first call is no call's
	}
	return c
}

// do calls a tool with fill over synthesized arguments and collects what
// the observers saw during the call. shown pairs argument names with how
// a message shows their values.
func (cl *caller) do(t packs.Tool, fill map[string]any, shown []string) *call {
	p := cl.p
	args, _ := packs.Arguments(t.InputSchema, p.Token, fill) // a schema defect is core's finding
	c := &call{tool: t.Name, shown: describe(t.Name, shown), start: time.Now()}
	c.res, c.err = p.Call(t.Name, args)
	c.end = time.Now()
	cl.calls = append(cl.calls, c)
	switch {
	case c.err == nil:
	case errors.Is(c.err, packs.ErrNoAnswer):
		p.Notef("%s: no answer within %s", c.shown, p.CallTimeout)
	default:
		p.Notef("%s: %v", c.shown, c.err)
	}
	if p.Observed != nil && cl.each {
		// What the call set going shows before its tree is idle; a tree
		// that stays busy is given settle, as a fixed wait was.
		p.WaitIdle(settle)
		c.recs = cl.collect()
	}
	return c
}

// collect returns the records no call was given yet.
func (cl *caller) collect() []observers.Record {
	all := cl.p.Observed.Probe()
	fresh := all[min(cl.seen, len(all)):]
	cl.seen = len(all)
	return fresh
}

// finish collects until the observers have been quiet for a while and
// gives each record no
// call was given yet to the call it belongs to: the call whose marker a
// loopback connection carries (marks, by call), else the call during which
// it happened, from the call's start to the next call's; the last call's
// time runs to settle after its answer, or, when there is no after, to
// the end of finish. It returns the records that belong to no call.
//
// The watch ends at the first of two barriers: the server's process tree
// idle (nothing due within wait, Pass.WaitIdle) with nothing new seen by
// then nor by a ping round trip after it; or, as before the barrier, wait
// and then the observers quiet for 3×settle (at most wait plus two
// seconds). A server that goes on doing something (a retry every 100 ms)
// never idles and is watched as long as before.
func (cl *caller) finish(wait time.Duration, marks []string, keepAfter bool) (after []observers.Record) {
	p := cl.p
	if p.Observed == nil {
		return nil
	}
	var late []observers.Record
	start := time.Now()
	deadline := start.Add(wait + 2*time.Second)
	idle := p.WaitIdle(wait)
	if p.Ctx.Err() != nil {
		return nil
	}
	got := cl.collect()
	late = append(late, got...)
	if idle && len(got) == 0 {
		// The ping's answer follows everything the server wrote before it,
		// and its round trip gives the harness's own endpoints the time to
		// book a connection the server made before it went idle.
		ctx, cancel := context.WithTimeout(p.Ctx, wait)
		p.Server.Request(ctx, "ping", nil)
		cancel()
		got = cl.collect()
		late = append(late, got...)
	}
	for quietSince := start; !idle || len(got) > 0; {
		if len(got) > 0 {
			quietSince = time.Now()
		}
		if time.Since(quietSince) >= 3*settle || time.Now().After(deadline) {
			break
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-p.Ctx.Done():
			return nil
		}
		got = cl.collect()
		late = append(late, got...)
		idle = false // once something came, the observers' quiet decides
	}
	for _, r := range late {
		owner, longest := -1, 0
		for i := range cl.calls {
			if i < len(marks) && len(marks[i]) > longest && r.Kind == observers.KindConnection &&
				(strings.Contains(r.Data[observers.KeyTarget], marks[i]) || strings.Contains(r.Data[observers.KeyPreview], marks[i])) {
				owner, longest = i, len(marks[i]) // the longest: fetch_html's mark holds fetch's
			}
		}
		for i, c := range cl.calls {
			if owner >= 0 {
				break
			}
			var until time.Time
			switch {
			case i+1 < len(cl.calls):
				until = cl.calls[i+1].start
			case keepAfter:
				until = c.end.Add(settle)
			}
			if !r.Time.Before(c.start) && (until.IsZero() || r.Time.Before(until)) {
				owner = i
			}
		}
		if owner >= 0 {
			cl.calls[owner].recs = append(cl.calls[owner].recs, r)
		} else {
			after = append(after, r)
		}
	}
	return after
}

// describe names a call for a message: tool(arg="value", ...), the
// arguments in the order given.
func describe(tool string, pairs []string) string {
	var b strings.Builder
	b.WriteString(tool + "(")
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%q", pairs[i], pairs[i+1])
	}
	b.WriteString(")")
	return b.String()
}

// describeArgs names a call with all its arguments, strings cut short,
// sorted by name, for the sweep's messages.
func describeArgs(tool string, args map[string]any) string {
	names := make([]string, 0, len(args))
	for n := range args {
		names = append(names, n)
	}
	sort.Strings(names)
	var pairs []string
	for _, n := range names {
		v := args[n]
		s, ok := v.(string)
		if !ok {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		if redact.SecretName(n) {
			s = redact.MaskRedacted
		}
		if len(s) > 60 {
			s = s[:60] + "…"
		}
		pairs = append(pairs, n, s)
	}
	return describe(tool, pairs)
}
