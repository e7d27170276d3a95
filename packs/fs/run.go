package fs

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/observers/files"
	"github.com/sealmark/sealmark/packs"
)

// run is one fs probe in progress: the tools it uses, the controls that
// failed, and how far it has read the observations.
type run struct {
	p      *packs.Pass
	sb     *packs.Sandbox
	form   form
	layout layout

	failed     []string          // controls not run, or of hinted tools that failed, with why
	notFile    []string          // guessed tools that failed their control, with why
	unprobed   []string          // path-looking tools that cannot be probed, with why
	probed     int               // tools that passed their control and were probed
	told       map[string]bool   // learned tools already noted
	unanswered []string          // calls that got no answer
	dead       bool              // the server exited: nothing more can be judged
	patterns   map[string]string // Search tool → the pattern that lists everything
	seen       int               // observation records already judged
	fresh      int               // names made so far
	calls      int
}

// start makes a run, or marks the probe not applicable (no sandbox, no
// link) or inconclusive (the sandbox cannot be restored) and returns nil.
func start(p *packs.Pass, f form) *run {
	if p.Sandbox == nil {
		p.NotApplicable("the run has no sandbox, so there is no canary to reach")
		return nil
	}
	r := &run{p: p, sb: p.Sandbox, form: f, layout: sandboxLayout(p), patterns: map[string]string{}, told: map[string]bool{}}
	switch {
	case f.needs == "link-dir" && !r.layout.linkDir:
		p.NotApplicable("root/link-dir could not be made on this platform")
		return nil
	case f.needs == "link-file" && !r.layout.linkFile:
		p.NotApplicable("root/link-file could not be made on this platform (a file link needs Developer Mode or an elevated shell on Windows)")
		return nil
	}
	outside, err := restore(r.sb, r.layout, "", nil)
	if err != nil {
		p.Inconclusive("the sandbox could not be restored before the probe: %v", err)
		return nil
	}
	if outside {
		r.consume()
	}
	return r
}

// tools returns the surface's tools with one of the roles. A schemaless
// tool (see Pending) is called once with no arguments to learn its
// argument names; one that still cannot be probed is recorded with why.
func (r *run) tools(hints []Hint, roles ...Role) []Tool {
	var out []Tool
	for _, t := range Tools(r.p.Surface, hints) {
		if slices.Contains(roles, t.Role) {
			out = append(out, t)
		}
	}
	for _, t := range Pending(r.p.Surface, hints) {
		if !slices.Contains(roles, t.Role) || r.dead {
			continue
		}
		l := r.learn(t)
		if r.told[t.Name] {
			if l.ok {
				out = append(out, l.tool)
			}
			continue
		}
		r.told[t.Name] = true
		switch {
		case l.ok:
			r.p.Notef("%s: %s", t.Name, l.how)
			out = append(out, l.tool)
		case l.none:
			r.p.Notef("%s", l.why)
		default:
			r.unprobed = append(r.unprobed, t.Name+": "+l.why)
		}
	}
	return out
}

// controlKey is the Shared key of a guessed tool that failed its control on
// this start (with absolute or relative paths), so later probes of the
// start leave it out without calling it again.
const controlKey = "fs.control-failed:"

// probe runs each tool's control and, when it passes, the probe's calls.
// A guessed tool that failed its control on an earlier probe of this start
// is left out again, uncalled.
func (r *run) probe(tools []Tool, calls func(Tool)) {
	for _, t := range tools {
		if r.dead {
			return
		}
		key := fmt.Sprintf("%s%s:%v", controlKey, t.Name, r.form.relative)
		if why, ok := r.p.Shared[key].(string); ok && !t.Hinted {
			r.notFile = append(r.notFile, why)
			continue
		}
		n := len(r.notFile)
		if r.control(t) {
			r.probed++
			calls(t)
		} else if len(r.notFile) > n && r.p.Shared != nil {
			r.p.Shared[key] = r.notFile[n]
		}
	}
}

// name makes a fresh name carrying the probe's token.
func (r *run) name(kind string) string {
	r.fresh++
	return fmt.Sprintf("sealmark-%s-%s%d", r.p.Token, kind, r.fresh)
}

// rootPath is a path inside the root, relative when the form is.
func (r *run) rootPath(name string) string {
	if r.form.relative {
		if name == "" {
			return "."
		}
		return name
	}
	if name == "" {
		return r.sb.Root
	}
	return filepath.Join(r.sb.Root, name)
}

// arg makes a path value fit the tool: a file:// URI where the tool wants
// one; false when the path cannot be sent to this tool.
func (r *run) arg(t Tool, tg target) (target, bool) {
	if !t.URI {
		return tg, true
	}
	if !filepath.IsAbs(tg.value) && !strings.HasPrefix(tg.value, "file:") {
		if !r.form.relative {
			return tg, false
		}
		tg = target{shown: "{sandbox}/" + tg.shown, value: filepath.Join(r.sb.Root, tg.value)}
	}
	return asURI(tg)
}

// call calls the tool with fill and synthesized other arguments. It
// returns nil when there is no answer to judge.
func (r *run) call(t Tool, fill map[string]any, what string) *packs.Response {
	if r.dead {
		return nil
	}
	args, _ := packs.Arguments(t.Schema, r.p.Token, fill) // a schema defect is core's finding
	r.calls++
	res, err := r.p.Call(t.Name, args)
	switch {
	case err == nil:
		return res
	case errors.Is(err, packs.ErrClosed) || !r.p.Server.Alive():
		r.dead = true
		r.p.Notef("the server exited during %s (%s)", what, r.p.Server.ExitStatus())
	case errors.Is(err, packs.ErrNoAnswer):
		r.unanswered = append(r.unanswered, what)
	default: // a transport error, no timeout
		r.unanswered = append(r.unanswered, fmt.Sprintf("%s (%s)", what, packs.Unanswered(err, r.p.CallTimeout)))
	}
	return nil
}

// describe names a call for a message: tool(arg="path", ...).
func describe(t Tool, pairs ...string) string {
	var b strings.Builder
	b.WriteString(t.Name + "(")
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%q", pairs[i], pairs[i+1])
	}
	b.WriteString(")")
	return b.String()
}

// cannotControl records that the harness could not run a tool's control
// (it cannot tell the tool's arguments, or prepare the sandbox): the tool
// could not be probed.
func (r *run) cannotControl(t Tool, format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf("%s: %s", t.Name, fmt.Sprintf(format, args...)))
}

// controlFailed records that a tool's answer failed its control: a guessed
// tool is then taken for no file tool, a hinted one stays one that could
// not be probed.
func (r *run) controlFailed(t Tool, format string, args ...any) {
	why := fmt.Sprintf("%s: %s", t.Name, fmt.Sprintf(format, args...))
	if t.Hinted {
		r.failed = append(r.failed, why)
		return
	}
	r.notFile = append(r.notFile, why)
}

// finish sets the verdict the findings do not. A guessed tool that failed
// its control (a benign call inside the root did not work) is left out as
// no file tool, with a note; when that leaves no tool, the probe is not
// applicable, with the reason. The probe is inconclusive when the server
// exited, a call got no answer, or no tool could be probed otherwise (a
// hinted tool's control failed, or a path-looking tool's arguments could
// not be learned). A tool that could not be probed while others were is
// left out with a note: the others' verdicts count.
func (r *run) finish() {
	var why []string
	excluded := slices.Concat(prefixed("control failed: ", r.failed), prefixed("not probed: ", r.unprobed))
	for _, e := range r.notFile {
		r.p.Notef("left out as no file tool, its path guess failed the control: %s", e)
	}
	switch {
	case r.probed == 0 && len(excluded) == 0 && len(r.notFile) > 0 && !r.dead && len(r.unanswered) == 0:
		r.p.NotApplicable("no tool passed its control (a benign call inside the root), so none is taken for a file tool: %s", strings.Join(r.notFile, "; "))
	case r.probed == 0:
		why = excluded
	default:
		for _, e := range excluded {
			r.p.Notef("left out, the other tools were probed: %s", e)
		}
	}
	r.p.Settle(r.dead, why, r.unanswered)
	r.p.Notef("%d calls", r.calls)
}

// prefixed puts prefix before each of list.
func prefixed(prefix string, list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = prefix + s
	}
	return out
}

// consume marks every observation so far as judged.
func (r *run) consume() {
	if r.p.Observed != nil {
		r.seen = len(r.p.Observed.Probe())
	}
}

// change is one thing that changed outside the root.
type change struct {
	path     string // below the top, slash-separated
	observer string // "files" (the observer) or "sandbox" (the harness looked itself)
	detail   string
}

// outside reports whether a path below the top is outside the root for
// this probe (packs.Sandbox.Outside).
func (r *run) outside(p string) bool { return r.p.Sandbox.Outside(p, r.p.Token) }

// changes returns what changed outside the root since the last look, from
// the files observer and from the harness's own look at the canary files
// and the top, and the paths created anywhere (for restore).
func (r *run) changes() (out []change, created []string) {
	reported := map[string]bool{}
	if r.p.Observed != nil {
		recs := r.p.Observed.Probe()
		for _, rec := range recs[min(r.seen, len(recs)):] {
			if rec.Kind != observers.KindFile {
				continue
			}
			p, from := rec.Data[observers.KeyPath], rec.Data[observers.KeyFrom]
			switch rec.Data[observers.KeyOp] {
			case files.OpCreated, files.OpLinkCreated, files.OpRenamed:
				created = append(created, p)
			}
			if r.outside(p) || r.outside(from) {
				out = append(out, change{path: p, observer: "files", detail: rec.Summary})
				reported[p], reported[from] = true, true
			}
		}
		r.seen = len(recs)
	}
	for _, c := range inspect(r.sb, r.p.Token, r.p.Observed == nil) {
		if !reported[c.path] {
			out = append(out, c)
		}
	}
	return out, created
}

// attempt runs one call that must change nothing outside the root and
// reports what it changed. The harness's own look (the canary files, and
// the probe's names anywhere outside the root) runs after every call; the
// files observer is asked only when that look found something, for the
// evidence, and by sweep at the end, for what the look cannot see.
// Collecting is the costly part of a write probe.
func (r *run) attempt(t Tool, fill map[string]any, desc string) {
	res := r.call(t, fill, desc)
	if res != nil {
		if leaked := secretsIn(r.sb, res, fill); len(leaked) > 0 {
			r.leak(t, desc, leaked)
		}
	}
	if len(inspect(r.sb, r.p.Token, true)) == 0 {
		if err := tidyRoot(r.sb, r.layout, r.p.Token); err != nil { // what changed is inside the root
			r.p.Notef("restoring the root: %v", err)
		}
		return
	}
	r.report(desc)
}

// sweep asks the files observer, once at the end of the probe, for
// anything outside the root the calls changed that the harness's own look
// missed.
func (r *run) sweep(tools []Tool) {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	r.report("the probe's calls of " + strings.Join(names, ", "))
}

// report collects the changes outside the root, reports them as done by
// what, and restores the sandbox.
func (r *run) report(what string) {
	out, created := r.changes()
	if len(out) > 0 {
		f := r.p.Reportf("%s changed the sandbox outside the root: %s", what, out[0].detail)
		f.Severity = packs.Critical
		for _, c := range out {
			f.Evidencef(c.observer, "%s", c.detail)
		}
	}
	r.restoreNow(created)
}

// restoreNow restores the sandbox. When that changed anything outside the
// root, it marks the observations so far as judged, so the repair is not
// taken for the next call's doing.
func (r *run) restoreNow(created []string) {
	outside, err := restore(r.sb, r.layout, r.p.Token, created)
	if err != nil {
		r.p.Notef("restoring the sandbox: %v", err)
	}
	if outside {
		r.consume()
	}
}

// jsonList renders a paths[] value for a message.
func jsonList(v ...string) string {
	b, _ := json.Marshal(v)
	return string(b)
}
