package git

import (
	"fmt"

	"github.com/sealmark/sealmark/packs"
)

// workdirPlaces are directories outside the root a working-directory tool
// must refuse.
var workdirPlaces = []string{"{sandbox_top}/canary/repo", "../canary/repo", "{sandbox}-evil/repo", "{sandbox}/link-repo"}

var workdirEscape = packs.Probe{
	ID:       "GIT-WORKDIR-ESCAPE",
	Name:     "workdir-escape",
	Severity: packs.Critical,
	CWE:      "CWE-22",
	Doc:      "a tool that sets the working directory must refuse one outside the root, and later calls must not read there (" + escapeClass + ")",
	Run: func(p *packs.Pass) {
		r := start(p)
		if r == nil {
			return
		}
		setters := r.tools(Workdir)
		if len(setters) == 0 {
			p.NotApplicable("no tool sets the working directory")
			return
		}
		var later []Tool // read tools that run in the working directory when given no repository
		for _, t := range r.tools(Read) {
			if !t.RepoRequired {
				later = append(later, t)
			}
		}
		for _, s := range setters {
			if r.dead || !r.workdirControl(s, later) {
				continue
			}
			for _, tmpl := range workdirPlaces {
				args := r.args(s, map[string]any{s.Dest: r.expand(tmpl, "")})
				desc := r.describe(s, args, s.Dest)
				res := r.call(s, args, desc)
				if res == nil {
					continue
				}
				r.judgeRead(s, res, args, desc)
				if res.Refused() {
					continue
				}
				for _, t := range later {
					largs := r.laterArgs(t)
					ldesc := fmt.Sprintf("%s after %s", r.describe(t, largs), desc)
					if lres := r.call(t, largs, ldesc); lres != nil {
						r.judgeRead(t, lres, largs, ldesc)
					}
				}
			}
			r.call(s, r.args(s, map[string]any{s.Dest: r.sb.Root}), "restoring the working directory")
		}
		r.finish()
	},
}

// laterArgs are a read tool's arguments without its repository, so it
// runs in the working directory.
func (r *run) laterArgs(t Tool) map[string]any {
	args := r.args(t, nil)
	delete(args, t.Repo)
	return args
}

// workdirControl sets the working directory to root/repo: the tool must
// accept it, and every later tool must then answer without error.
func (r *run) workdirControl(s Tool, later []Tool) bool {
	args := r.args(s, map[string]any{s.Dest: r.gs.Repo})
	desc := r.describe(s, args, s.Dest)
	if !r.control(s, r.call(s, args, "control "+desc), desc, true) {
		return false
	}
	for _, t := range later {
		largs := r.laterArgs(t)
		ldesc := r.describe(t, largs) + " after " + desc
		if res := r.call(t, largs, "control "+ldesc); res == nil || res.Refused() {
			r.p.Notef("control: %s did not succeed (%s): later calls are not judged", ldesc, res.Brief())
			return true
		}
	}
	return true
}
