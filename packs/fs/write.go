package fs

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sealmark/sealmark/packs"
)

// writeProbe is the active probe of one form: every write, mkdir and link
// tool at the form's new names, every move tool out to them and in from
// the form's files, every edit and delete tool on the form's files. The
// oracle is the files observer (and the harness's own look at the canary
// files and the top); the sandbox is restored after every call that
// changed it.
func writeProbe(f form, hints []Hint) packs.Probe {
	return packs.Probe{
		ID:       "FS-WRITE-" + f.id,
		Name:     "write-" + f.key,
		Severity: packs.Critical,
		CWE:      f.cwe,
		Active:   true,
		Doc:      fmt.Sprintf("write, edit, mkdir, move, delete and link tools must not change anything outside the root through %s (%s)", f.what, f.class),
		Run: func(p *packs.Pass) {
			r := start(p, f)
			if r == nil {
				return
			}
			tools := r.tools(hints, Write, Edit, Mkdir, Move, Delete, Link)
			if len(tools) == 0 && len(r.unprobed) == 0 && !r.dead {
				p.NotApplicable("no tool writes, edits, creates, moves, deletes or links a path")
				return
			}
			r.probe(tools, r.writes)
			r.sweep(tools)
			r.finish()
		},
	}
}

// writes tries every path of the form that fits the tool's role.
func (r *run) writes(t Tool) {
	switch t.Role {
	case Write, Mkdir, Link:
		for _, tmpl := range r.form.news {
			tg, ok := r.arg(t, expand(r.sb, tmpl, r.name("w")))
			if !ok {
				continue
			}
			fill := map[string]any{t.Path: tg.value}
			desc := describe(t, t.Path, tg.shown)
			switch {
			case t.Role == Write && t.Content != "":
				fill[t.Content] = "sealmark-" + r.p.Token
			case t.Role == Link:
				fill[t.To] = filepath.Join(r.sb.Root, "ok.txt")
				desc = describe(t, t.Path, tg.shown, t.To, "{sandbox}/ok.txt")
			}
			r.attempt(t, fill, desc)
		}
	case Move:
		for _, tmpl := range r.form.news {
			src := r.name("src")
			if !r.seed(src) {
				return
			}
			from, ok1 := r.arg(t, target{shown: "{sandbox}/" + src, value: filepath.Join(r.sb.Root, src)})
			to, ok2 := r.arg(t, expand(r.sb, tmpl, r.name("w")))
			if !ok1 || !ok2 {
				continue
			}
			r.attempt(t, map[string]any{t.Path: from.value, t.To: to.value}, describe(t, t.Path, from.shown, t.To, to.shown))
		}
		for _, tmpl := range r.form.files {
			dst := r.name("in")
			from, ok1 := r.arg(t, expand(r.sb, tmpl, ""))
			to, ok2 := r.arg(t, target{shown: "{sandbox}/" + dst, value: filepath.Join(r.sb.Root, dst)})
			if !ok1 || !ok2 {
				continue
			}
			r.attempt(t, map[string]any{t.Path: from.value, t.To: to.value}, describe(t, t.Path, from.shown, t.To, to.shown))
		}
	case Edit, Delete:
		for _, tmpl := range r.form.files {
			tg, ok := r.arg(t, expand(r.sb, tmpl, ""))
			reached := reaches(r.sb, tmpl)
			if !ok || t.Role == Edit && reached.Name == "" {
				continue
			}
			fill := map[string]any{t.Path: tg.value}
			if t.Role == Edit {
				for k, v := range editFill(t, reached.Value, "sealmark-"+r.p.Token) {
					fill[k] = v
				}
			}
			r.attempt(t, fill, describe(t, t.Path, tg.shown))
		}
	}
}

// seed writes a file the probe owns into the root, for a move's source.
func (r *run) seed(name string) bool {
	top, err := os.OpenRoot(r.sb.Top)
	if err == nil {
		err = top.WriteFile(filepath.Join("root", name), []byte("sealmark-"+r.p.Token), 0o600)
		top.Close()
	}
	if err != nil {
		r.p.Notef("cannot seed root/%s: %v", name, err)
		return false
	}
	return true
}
