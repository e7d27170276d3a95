package fs

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// linkTargets are where the link-create probe asks a new link in the root
// to point: a canary file (relative and absolute) and the canary directory.
var linkTargets = []string{"../canary/secret.txt", "{sandbox_top}/canary/secret.txt", "../canary"}

// linkCreate asks every link tool for a link in the root pointing out, and
// when one is made, reads and writes through it.
func linkCreate(hints []Hint) packs.Probe {
	return packs.Probe{
		ID:       "FS-LINK-CREATE",
		Name:     "link-create",
		Severity: packs.High,
		CWE:      "CWE-59",
		Active:   true,
		Doc:      "a link tool must not make a link in the root that points outside it, and no tool may read or write through one (" + linkClass + ")",
		Run: func(p *packs.Pass) {
			r := start(p, form{key: "link-create"})
			if r == nil {
				return
			}
			links := r.tools(hints, Link)
			if len(links) == 0 && len(r.unprobed) == 0 && !r.dead {
				p.NotApplicable("no tool creates a link")
				return
			}
			r.probe(links, func(t Tool) {
				for _, tmpl := range linkTargets {
					r.linkOut(t, hints, tmpl)
				}
			})
			r.restoreNow(nil)
			r.finish()
		},
	}
}

// linkOut asks for one link pointing out and, when it is made, goes
// through it.
func (r *run) linkOut(t Tool, hints []Hint, tmpl string) {
	name := r.name("link")
	at := target{shown: "{sandbox}/" + name, value: filepath.Join(r.sb.Root, name)}
	to := expand(r.sb, tmpl, "")
	desc := describe(t, t.Path, at.shown, t.To, to.shown)
	r.call(t, map[string]any{t.Path: at.value, t.To: to.value}, desc)
	if dest, out := r.pointsOut(at.value); out {
		r.p.Reportf("%s made a link in the root that points outside it, to %s", desc, dest).
			Evidencef("sandbox", "%s is a link to %s", at.shown, to.shown)
		for _, rt := range r.tools(hints, Read, ReadMany, Stat, List, Search) {
			fill := map[string]any{rt.Path: at.value}
			if rt.Role == ReadMany {
				fill[rt.Path] = []any{at.value}
			}
			if res := r.call(rt, fill, describe(rt, rt.Path, at.shown)); res != nil {
				r.judgeRead(rt, res, fill, describe(rt, rt.Path, at.shown)+" through the new link", reaches(r.sb, tmpl))
			}
		}
		for _, wt := range r.tools(hints, Write) {
			fill := map[string]any{wt.Path: at.value}
			if wt.Content != "" {
				fill[wt.Content] = "sealmark-" + r.p.Token
			}
			r.attempt(wt, fill, describe(wt, wt.Path, at.shown)+" through the new link")
		}
	}
	r.report(desc)
}

// pointsOut reports whether at is a link whose target, resolved from the
// link's directory, is outside the root, and names the target.
func (r *run) pointsOut(at string) (string, bool) {
	fi, err := os.Lstat(at)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return "", false
	}
	dest, err := os.Readlink(at)
	if err != nil {
		return "", false
	}
	abs := dest
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(filepath.Dir(at), abs)
	}
	rel, err := filepath.Rel(r.sb.Root, filepath.Clean(abs))
	out := err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
	return strings.ReplaceAll(dest, r.sb.Top, "{sandbox_top}"), out
}
