package git

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// run is one git probe in progress: the calls it made, the controls that
// failed and how far it has read the observations.
type run struct {
	p  *packs.Pass
	sb *packs.Sandbox
	gs *packs.GitSandbox

	failed     []string // tools excluded by a failed control, with why
	passed     int      // tools whose control passed
	unanswered []string
	dead       bool
	seen       int // observation records already judged
	fresh      int
	calls      int
}

// start makes a run, or marks the probe not applicable and returns nil.
func start(p *packs.Pass) *run {
	switch {
	case p.Sandbox == nil:
		p.NotApplicable("the run has no sandbox, so there is no canary repository to reach")
		return nil
	case p.Sandbox.Git == nil || p.Sandbox.Git.Repo == "":
		p.NotApplicable("the sandbox has no git repositories (git was not found when it was made)")
		return nil
	}
	r := &run{p: p, sb: p.Sandbox, gs: p.Sandbox.Git}
	r.records() // what happened before the probe is not its doing
	return r
}

// tools returns the surface's git tools with one of the operations.
func (r *run) tools(ops ...Op) []Tool {
	var out []Tool
	for _, t := range Tools(r.p.Surface) {
		if slices.Contains(ops, t.Op) {
			out = append(out, t)
		}
	}
	return out
}

// name makes a fresh name carrying the probe's token.
func (r *run) name(kind string) string {
	r.fresh++
	return fmt.Sprintf("sealmark-%s-%s%d", r.p.Token, kind, r.fresh)
}

// expand fills a path template: {sandbox} is the root, {sandbox_top} its
// parent, {repo} root/repo, {new} name.
func (r *run) expand(tmpl, name string) string {
	return strings.NewReplacer("{sandbox_top}", r.sb.Top, "{sandbox}", r.sb.Root, "{repo}", r.gs.Repo, "{new}", name, "{token}", r.p.Token).Replace(tmpl)
}

// args builds a call's arguments: fill, then a value that lets the call
// succeed inside root/repo for every other required argument (HEAD for a
// ref, main for a branch, README.md for a file), then the schema's
// synthesis for the rest.
func (r *run) args(t Tool, fill map[string]any) map[string]any {
	all := map[string]any{}
	for _, a := range t.Refs {
		all[a] = r.benign(a)
	}
	if t.Paths != "" {
		all[t.Paths] = []any{"README.md"}
	}
	if t.Repo != "" {
		all[t.Repo] = r.gs.Repo
	}
	if m := t.opMode(); m != "" {
		all[t.Mode] = m
	}
	for k, v := range fill {
		all[k] = v
	}
	// Only the repository, required arguments and the ones the probe set
	// are sent.
	var s struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(t.Schema, &s)
	out, _ := packs.Arguments(t.Schema, r.p.Token, nil) // a schema defect is core's finding
	for k, v := range all {
		if _, set := fill[k]; set || k == t.Repo || k == t.Mode || slices.Contains(s.Required, k) {
			out[k] = v
		}
	}
	return out
}

// benign is a value for a string argument that a git tool accepts in
// root/repo.
func (r *run) benign(arg string) string {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(arg))
	switch {
	case strings.Contains(n, "branch"):
		return "main"
	case strings.Contains(n, "message") || n == "msg" || strings.Contains(n, "description"):
		return "sealmark " + r.p.Token
	case strings.Contains(n, "file") || strings.Contains(n, "path"):
		return "README.md"
	case strings.Contains(n, "range"):
		return "1,1"
	case strings.Contains(n, "name") || strings.Contains(n, "remote") || strings.Contains(n, "tag"):
		return "sealmark-" + r.p.Token
	}
	return "HEAD"
}

// call calls the tool; nil when there is no answer to judge.
func (r *run) call(t Tool, args map[string]any, what string) *packs.Response {
	if r.dead {
		return nil
	}
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
	default:
		r.unanswered = append(r.unanswered, fmt.Sprintf("%s (%v)", what, err))
	}
	return nil
}

// shown renders a path for a message: the sandbox's paths by their stable
// names.
func (r *run) shown(v string) string {
	return strings.NewReplacer(r.sb.Root+"-evil", "{sandbox}-evil", r.sb.Root, "{sandbox}", r.sb.Top, "{sandbox_top}").Replace(v)
}

// describe names a call for a message: tool(arg="value", ...), the probed
// arguments only.
func (r *run) describe(t Tool, args map[string]any, keys ...string) string {
	var parts []string
	for _, k := range keys {
		v, ok := args[k]
		if !ok {
			continue
		}
		b, _ := json.Marshal(v)
		parts = append(parts, k+"="+r.shown(string(b)))
	}
	return t.Name + "(" + strings.Join(parts, ", ") + ")"
}

// control records whether a benign call succeeded; a tool that fails it is
// left out of the probe, with a note.
func (r *run) control(t Tool, res *packs.Response, desc string, ok bool) bool {
	if res == nil {
		return false
	}
	if !ok || res.Refused() {
		r.failed = append(r.failed, fmt.Sprintf("%s: %s did not succeed (%s)", t.Name, desc, res.Brief()))
		return false
	}
	r.passed++
	return true
}

// finish sets the verdict findings do not: inconclusive when no tool
// passed its control, a call got no answer or the server exited; notes
// for the tools left out.
func (r *run) finish() {
	var why []string
	if len(r.failed) > 0 {
		r.p.Notef("left out after a failed control: %s", strings.Join(r.failed, "; "))
		if r.passed == 0 {
			why = append(why, "every tool failed its control: "+strings.Join(r.failed, "; "))
		}
	}
	r.p.Settle(r.dead, why, r.unanswered)
	r.p.Notef("%d calls", r.calls)
}

// leaks names the canaries a response carries (the canary repositories'
// secrets and the canary files'), leaving out what the request sent.
func (r *run) leaks(res *packs.Response, args map[string]any) []string {
	sent, _ := json.Marshal(args)
	b := res.Body()
	var names []string
	for _, s := range append(slices.Clone(r.gs.Repos), r.sb.Files...) {
		if s.Value != "" && bytes.Contains(b, []byte(s.Value)) && !bytes.Contains(sent, []byte(s.Value)) {
			names = append(names, s.Name)
		}
	}
	return names
}

// records returns the observations since the last look.
func (r *run) records() []observers.Record {
	if r.p.Observed == nil {
		return nil
	}
	recs := r.p.Observed.Probe()
	out := recs[min(r.seen, len(recs)):]
	r.seen = len(recs)
	return out
}

// canaryRuns returns the sm-canary runs among recs whose arguments hold
// one of marks, and the argument that matched. The process observer
// stores argv with the run's tokens already replaced by their stable
// names, so a run it attributed by the token counts for that token.
func canaryRuns(recs []observers.Record, marks ...string) (runs []observers.Record, matched []string) {
	for _, rec := range recs {
		if rec.Kind != observers.KindProcess || rec.Data[observers.KeyOp] != "exec" || filepath.Base(rec.Data[observers.KeyProg]) != "sm-canary" {
			continue
		}
		var argv []string
		_ = json.Unmarshal([]byte(rec.Data[observers.KeyArgv]), &argv)
		hit := ""
		for _, a := range argv {
			if slices.ContainsFunc(marks, func(m string) bool { return strings.Contains(a, m) }) {
				hit = a
				break
			}
		}
		if hit == "" && rec.Data[observers.KeyAttributed] == "token" && slices.Contains(marks, rec.Token) {
			hit = strings.Join(argv[min(1, len(argv)):], " ")
		}
		if hit != "" {
			runs, matched = append(runs, rec), append(matched, hit)
		}
	}
	return runs, matched
}

// outsideChanges returns the file records of changes outside root/: in
// root-evil, canary, the top, and anything carrying the token in home and
// tmp (the server's own HOME and TMPDIR).
func (r *run) outsideChanges(recs []observers.Record) []observers.Record {
	var out []observers.Record
	for _, rec := range recs {
		if rec.Kind == observers.KindFile && (r.outside(rec.Data[observers.KeyPath]) || r.outside(rec.Data[observers.KeyFrom])) {
			out = append(out, rec)
		}
	}
	return out
}

func (r *run) outside(p string) bool { return r.p.Sandbox.Outside(p, r.p.Token) }
