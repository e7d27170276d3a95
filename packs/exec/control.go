package exec

import (
	"fmt"
	"strings"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// profile is what a tool's controls showed, once per start: whether it
// runs the harness's sm-echo at all (the intended use), and whether it runs
// any program it is given (sm-canary asked for directly).
type profile struct {
	runs         bool   // sm-echo ran, or its output came back
	unrestricted bool   // sm-canary ran when asked for by name
	why          string // why the control failed, when runs is false
	ran          string // the command line the server executed for the control, when seen
}

func profileKey(t Tool) string { return "exec/profile/" + t.Name }

// profile runs a tool's controls, or returns what they showed earlier in
// this start.
func (r *run) profile(t Tool) profile {
	if pf, ok := r.p.Shared[profileKey(t)].(profile); ok {
		return pf
	}
	var pf profile
	ctl := payload{line: "sm-echo " + r.marker("ctl")}
	res, _ := r.call(t, ctl, "control "+describe(t, ctl))
	switch {
	case res == nil:
		pf.why = describe(t, ctl) + " got no answer"
	case len(r.ran("sm-echo", "ctl")) > 0 || len(r.executed("", "ctl")) > 0 || echoOutput(res, r.marker("ctl")):
		pf.runs = true
		if lines := r.executed("", "ctl"); len(lines) > 0 {
			pf.ran = lines[0]
		}
	default:
		pf.why = fmt.Sprintf("%s did not run sm-echo (%s)", describe(t, ctl), res.Brief())
	}
	if pf.runs {
		direct := payload{line: "sm-canary " + r.marker("direct")}
		res, _ := r.call(t, direct, "control "+describe(t, direct))
		_, pf.unrestricted = r.canaryRan(res, "direct")
	}
	if pf.runs {
		r.p.Shared[profileKey(t)] = pf // a failed control is tried again by the next probe
	}
	return pf
}

// echoOutput reports whether a response carries sm-echo's output for the
// marker: its arguments as a JSON array, so the marker in quotes (escaped
// inside a result's text). The command line alone (a terminal echoing
// what was typed, an error quoting it) does not count.
func echoOutput(res *packs.Response, marker string) bool {
	b := string(res.Body())
	return strings.Contains(b, `"`+marker+`"`) || strings.Contains(b, `\"`+marker+`\"`)
}

// restricted returns the tools that run sm-echo but refuse sm-canary by
// name: the ones whose restriction a probe can try to get around. Tools
// that run any program are named in a note (nothing to get around), tools
// whose control failed make the probe inconclusive; when no tool is left
// the probe is not applicable and says why.
func (r *run) restricted() []Tool {
	var out, open []Tool
	for _, t := range r.usable() {
		pf := r.profile(t)
		switch {
		case !pf.runs:
			r.failed = append(r.failed, t.Name+": "+pf.why)
		case pf.unrestricted:
			open = append(open, t)
		default:
			out = append(out, t)
		}
	}
	if len(out) == 0 && len(r.failed) == 0 && len(open) > 0 {
		r.decided = true
		r.p.NotApplicable("%s runs any program it is given (sm-canary ran when asked for by name): a shell by design, with no restriction to get around; the pack judges its children's environment, lifetime and output instead", names(open))
		return nil
	}
	if len(open) > 0 {
		r.p.Notef("%s runs any program it is given: not probed for a way around a restriction", names(open))
	}
	return out
}

// running returns the tools whose control ran sm-echo; the rest make the
// probe inconclusive.
func (r *run) running() []Tool {
	var out []Tool
	for _, t := range r.usable() {
		if pf := r.profile(t); pf.runs {
			out = append(out, t)
		} else {
			r.failed = append(r.failed, t.Name+": "+pf.why)
		}
	}
	return out
}

// usable returns the command tools that have not killed the server in an
// earlier probe of the pack; those are named in a note (the probe that
// saw it has the finding).
func (r *run) usable() []Tool {
	var out []Tool
	for _, t := range Tools(r.p.Surface, r.hints) {
		if what, ok := r.p.Shared[crashedKey(t)].(string); ok {
			r.p.Notef("%s left out: %s killed the server in an earlier probe", t.Name, what)
			continue
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		r.failed = append(r.failed, "every command tool killed the server in an earlier probe")
	}
	return out
}

func names(ts []Tool) string {
	var n []string
	for _, t := range ts {
		n = append(n, t.Name)
	}
	return strings.Join(n, ", ")
}

// noteExecuted records, as the probe's notes, the distinct command lines
// the server executed since the last look (from the egress observer's
// exec records), at most maxNotes per probe.
func (r *run) noteExecuted(noted *int) {
	const maxNotes = 24
	recs := r.observed()
	for _, rec := range recs[min(*noted, len(recs)):] {
		*noted++
		if rec.Observer != "egress" || rec.Data[observers.KeyStart] == "true" {
			continue
		}
		line := shellLine(packs.Argv(rec))
		if r.noted[line] || len(r.noted) >= maxNotes {
			continue
		}
		r.noted[line] = true
		r.p.Notef("executed: %s", line)
	}
}

// alive returns the run's processes still alive whose argv holds s.
func (r *run) alive(s string) []observers.Record {
	if r.p.Observed == nil {
		return nil
	}
	var out []observers.Record
	for _, rec := range r.p.Observed.Survivors() {
		if strings.Contains(rec.Data[observers.KeyArgv], s) {
			out = append(out, rec)
		}
	}
	return out
}
