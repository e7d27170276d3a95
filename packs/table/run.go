package table

import (
	"context"
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// call is one row's call and what its expectations judge.
type call struct {
	p       *packs.Pass
	row     Row
	x       *expander
	res     *packs.Response
	err     error
	elapsed time.Duration
	timeout time.Duration
	records []observers.Record // what the observers saw during the probe
	before  map[string]bool    // pids of the run's live processes before the call
	found   int                // findings reported so far
}

// failf reports a finding that names the row.
func (c *call) failf(format string, args ...any) *packs.Finding {
	c.found++
	return c.p.Reportf("row "+c.row.Name+": "+format, args...)
}

// processObserved reports whether this platform has a process observer:
// the engine has one where /proc can be read (Linux).
var processObserved = func() bool {
	if runtime.GOOS != "linux" {
		return false
	}
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// unavailable says why the expectations reading src cannot be checked on
// this run, or "".
func unavailable(p *packs.Pass, src source) string {
	switch src {
	case fromFiles:
		if p.Observed == nil || p.Sandbox == nil {
			return "no files observer: the run has no sandbox"
		}
	case fromNetwork:
		if p.Observed == nil || p.Vars["listener"] == "" {
			return "no loopback listener or upstream stub: the run has no sandbox"
		}
	case fromProcesses:
		if p.Observed == nil {
			return "no process observer: the run has no sandbox"
		}
		if !processObserved() {
			return "no process observer on " + runtime.GOOS + " (it reads /proc, which only Linux has)"
		}
	}
	return ""
}

// run is every row's probe: call the tool once, then judge each
// expectation, then run the row's own Check.
func run(p *packs.Pass, r Row) {
	c := &call{p: p, row: r, x: &expander{vals: values(p)}, timeout: p.CallTimeout}
	if !c.toolOffered() {
		return
	}
	args, _ := c.x.args(map[string]any(r.Args)).(map[string]any)
	if args == nil {
		args = map[string]any{}
	}
	if c.x.missing != "" {
		c.failf("cannot call %s: args: %s", r.Tool, missingValue(c.x.missing))
		return
	}
	why := map[source]string{}
	observe := false
	for _, e := range r.Expect {
		src := kinds[e.kind].source
		if w := unavailable(p, src); w != "" {
			why[src] = w
		} else if src != fromResponse {
			observe = true
		}
	}
	if d := c.within(); d > 0 {
		c.timeout = d // the row's own bound, shorter or longer than the run's
	}
	if c.timeout <= 0 {
		c.timeout = 10 * time.Second
	}
	if c.needs(kindNoOutlived) && why[fromProcesses] == "" {
		c.before = pids(p.Observed.Survivors())
	}

	ctx, cancel := context.WithTimeout(p.Ctx, c.timeout)
	start := time.Now()
	c.res, c.err = p.Server.Request(ctx, "tools/call", map[string]any{"name": r.Tool, "arguments": args})
	c.elapsed = time.Since(start)
	cancel()
	if observe {
		c.records = p.Observed.Probe()
	}

	c.judgeResponse()
	for _, e := range r.Expect {
		src := kinds[e.kind].source
		if src == fromResponse {
			continue
		}
		if w := why[src]; w != "" {
			c.failf("%s: cannot be checked on this run: %s", e, w)
			continue
		}
		before := c.found
		c.judgeObserved(e)
		if c.found == before {
			c.confirm(e, src)
		}
	}
	if r.Check != nil {
		res := c.res
		if c.err != nil {
			res = nil
		}
		r.Check(p, res, c.err)
	}
}

// within is the smallest bound of the row's Within expectations, or 0.
func (c *call) within() time.Duration {
	var d time.Duration
	for _, e := range c.row.Expect {
		if e.kind == kindWithin && (d == 0 || e.d < d) {
			d = e.d
		}
	}
	return d
}

// needs reports whether the row has an expectation of kind k.
func (c *call) needs(k kind) bool {
	return slices.ContainsFunc(c.row.Expect, func(e Expect) bool { return e.kind == k })
}

// toolOffered fails the row when the server does not list its tool.
func (c *call) toolOffered() bool {
	s := c.p.Surface
	if s == nil {
		return true // nothing to compare with; the call itself will tell
	}
	if _, ok := s.Tool(c.row.Tool); ok {
		return true
	}
	names := make([]string, 0, len(s.Tools))
	for _, t := range s.Tools {
		names = append(names, t.Name)
	}
	offered := "no tool"
	if len(names) > 0 {
		if len(names) > 30 {
			names = append(names[:30], "…")
		}
		offered = strings.Join(names, ", ")
	}
	f := c.failf("tool %s is not offered by the server", c.row.Tool)
	f.Evidencef("tools/list", "the server offers %s", offered)
	if s.ToolsError != "" {
		f.Evidencef("tools/list", "the list could not be read completely: %s", s.ToolsError)
	}
	return false
}

// confirm makes a passing observed expectation inconclusive when its
// observer lost data during the probe: nothing seen is not proof then.
func (c *call) confirm(e Expect, src source) {
	if e.kind == kindNoOutlived {
		return // read from /proc directly, not from records
	}
	for _, r := range c.records {
		if r.Kind != observers.KindLoss || !fromSource(r, src) {
			continue
		}
		if r.Observer == "files" && (r.Data[observers.KeyReason] == "fallback" || r.Data[observers.KeyReason] == "unavailable") {
			continue // a full walk is exact
		}
		c.p.Inconclusive("row %s: %s: not proven: the %s observer lost data: %s", c.row.Name, e, r.Observer, r.Summary)
		return
	}
}

// fromSource reports whether record r comes from an observer src reads.
func fromSource(r observers.Record, src source) bool {
	switch src {
	case fromFiles:
		return r.Observer == "files"
	case fromNetwork:
		return r.Observer == "loopback" || r.Observer == "upstream"
	case fromProcesses:
		return r.Observer == "process"
	}
	return false
}

// noAnswer reports whether err means the server did not answer in time.
func noAnswer(err error) bool {
	return errors.Is(err, packs.ErrNoAnswer) || errors.Is(err, context.DeadlineExceeded)
}
