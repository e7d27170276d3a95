package git

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/observers/files"
	"github.com/sealmark/sealmark/packs"
)

// outsideNew are new paths outside the root a tool that creates must not
// make: {new} is a fresh name carrying the token.
var outsideNew = []string{"{sandbox_top}/canary/{new}", "{sandbox}/../{new}", "../{new}", "{sandbox}-evil/{new}", "{sandbox}/link-repo/{new}"}

// outsideDirs are existing directories outside the root that git init must
// not turn into repositories (a server that runs git init in the directory
// it is given, without creating it, is still caught).
var outsideDirs = []string{"{sandbox}-evil", "{sandbox_top}/canary", "{sandbox}/.."}

var createOutside = packs.Probe{
	ID:       "GIT-CREATE-OUTSIDE",
	Name:     "create-outside",
	Severity: packs.Critical,
	CWE:      "CWE-22",
	Active:   true,
	Doc:      "init, clone, archive, bundle and format-patch must not create anything outside the root (" + createClass + ")",
	Run: func(p *packs.Pass) {
		r := start(p)
		if r == nil {
			return
		}
		tools := r.creators()
		if len(tools) == 0 {
			p.NotApplicable("no git tool creates a repository, worktree or file at a path it takes")
			return
		}
		for _, t := range tools {
			if r.dead || !r.createControl(t) {
				continue
			}
			for _, tmpl := range outsideNew {
				at := r.expand(tmpl, r.name("new"))
				r.attempt(t, r.createArgs(t, at), at)
			}
			if t.Op == Init {
				for _, tmpl := range outsideDirs {
					dir := r.expand(tmpl, "")
					r.attempt(t, r.createArgs(t, dir), filepath.Join(dir, ".git"))
				}
			}
		}
		r.finish()
	},
}

// creators are the tools that create at a path they take (worktree add is
// worktree-outside's).
func (r *run) creators() []Tool {
	var out []Tool
	for _, t := range r.tools(Init, Clone, Export) {
		if t.Op == Init && t.Repo != "" || t.Op != Init && t.Dest != "" {
			out = append(out, t)
		}
	}
	return out
}

// createArgs asks the tool to create at.
func (r *run) createArgs(t Tool, at string) map[string]any {
	fill := map[string]any{}
	switch t.Op {
	case Init:
		fill[t.Repo] = at
	case Clone:
		fill[t.Dest] = at
		if t.URL != "" {
			fill[t.URL] = r.gs.Repo
		}
	default:
		fill[t.Dest] = at
	}
	if t.Op == Worktree {
		for _, a := range t.Refs {
			if strings.Contains(strings.ToLower(a), "branch") {
				fill[a] = r.name("branch")
			}
		}
	}
	return r.args(t, fill)
}

// createKey is the argument naming what a tool creates: the repository
// of an init tool, the destination of the others.
func createKey(t Tool) string {
	if t.Op == Init {
		return t.Repo
	}
	return t.Dest
}

// initKey is the argument naming where a tool with an initialize flag
// runs git init: a working-directory tool's directory, else its
// repository.
func initKey(t Tool) string {
	if t.Op == Workdir {
		return t.Dest
	}
	return t.Repo
}

// createControl asks the tool to create inside the root and checks that
// it did. git init gets a directory the harness made, so a tool that
// needs one existing passes.
func (r *run) createControl(t Tool) bool {
	name := r.name("ctl")
	at := filepath.Join(r.sb.Root, name)
	want := at
	if t.Op == Init {
		if err := os.Mkdir(at, 0o700); err != nil {
			r.p.Notef("cannot make root/%s: %v", name, err)
			return false
		}
		want = filepath.Join(at, ".git")
	}
	args := r.createArgs(t, at)
	desc := r.describe(t, args, t.Mode, createKey(t))
	res := r.call(t, args, "control "+desc)
	_, err := os.Lstat(want)
	ok := r.control(t, res, desc, err == nil)
	_ = os.RemoveAll(at)
	r.records()
	return ok
}

// attempt makes one call that must create nothing outside the root, and
// reports what it created: the path it asked for (the harness looks
// itself) and what the files observer saw outside the root. It then
// removes what was created, and returns the answer (nil for none).
func (r *run) attempt(t Tool, args map[string]any, watch string) *packs.Response {
	if !filepath.IsAbs(watch) {
		watch = filepath.Join(r.sb.Root, watch) // the server's working directory
	}
	_, err := os.Lstat(watch)
	existed := err == nil
	key := createKey(t)
	if _, set := args[t.InitFlag]; set {
		key = initKey(t) // init-if-missing's call
	}
	desc := r.describe(t, args, t.Mode, key, t.InitFlag)
	res := r.call(t, args, desc)
	if res != nil {
		r.judgeRead(t, res, args, desc)
	}
	r.judgeCreated(desc, watch, existed, r.records())
	return res
}

// judgeCreated reports what a call created outside the root (watch, when
// it did not exist before, and what the observations recs show) and
// removes it.
func (r *run) judgeCreated(desc, watch string, existed bool, recs []observers.Record) {
	var made []string
	if _, err := os.Lstat(watch); watch != "" && err == nil && !existed {
		made = append(made, watch)
	}
	recs = r.outsideChanges(recs)
	if len(made) == 0 && len(recs) == 0 {
		return
	}
	what := ""
	if len(made) > 0 {
		what = r.shown(made[0])
	} else {
		what = recs[0].Summary
	}
	f := r.p.Reportf("%s created %s, outside the root", desc, what)
	if len(made) > 0 {
		f.Evidencef("sandbox", "%s exists after the call", r.shown(made[0]))
	}
	for _, rec := range recs {
		f.Evidencef(rec.Observer, "%s", rec.Summary)
	}
	r.remove(made, recs)
}

// remove deletes what a call created outside the root: the paths the
// harness found and the files observer's created paths. It works through
// an os.Root on the sandbox top, so it never follows a link out of it.
func (r *run) remove(made []string, recs []observers.Record) {
	top, err := os.OpenRoot(r.sb.Top)
	if err != nil {
		r.p.Notef("restoring the sandbox: %v", err)
		return
	}
	defer top.Close()
	var rels []string
	for _, m := range made {
		if rel, err := filepath.Rel(r.sb.Top, m); err == nil && !strings.HasPrefix(rel, "..") {
			rels = append(rels, rel)
		}
	}
	for _, rec := range recs {
		switch rec.Data[observers.KeyOp] {
		case files.OpCreated, files.OpLinkCreated, files.OpRenamed:
			rels = append(rels, filepath.FromSlash(rec.Data[observers.KeyPath]))
		}
	}
	for _, rel := range rels {
		if err := top.RemoveAll(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.p.Notef("restoring the sandbox: %v", err)
		}
	}
	r.records() // the removals are the harness's, not the next call's
}
