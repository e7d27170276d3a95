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
			judged, ok := r.workdirControl(s, later)
			if r.dead || !ok {
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
				for _, t := range judged {
					largs := r.laterArgs(t)
					ldesc := fmt.Sprintf("%s after %s", r.describe(t, largs), desc)
					if lres := r.call(t, largs, ldesc); lres != nil {
						r.judgeRead(t, lres, largs, ldesc)
					}
				}
				r.resetWorkdir(s) // the next relative form starts from the root
			}
		}
		r.finish()
	},
}

// resetWorkdir sets the working directory back to the root, where the
// server started.
func (r *run) resetWorkdir(s Tool) {
	r.call(s, r.args(s, map[string]any{s.Dest: r.sb.Root}), "restoring the working directory")
}

// laterArgs are a read tool's arguments without its repository, so it
// runs in the working directory.
func (r *run) laterArgs(t Tool) map[string]any {
	args := r.args(t, nil)
	delete(args, t.Repo)
	return args
}

// workdirControl sets the working directory to root/repo: the tool must
// accept it. It returns the later tools that then answer without error
// there: only their later calls are judged.
func (r *run) workdirControl(s Tool, later []Tool) ([]Tool, bool) {
	args := r.args(s, map[string]any{s.Dest: r.gs.Repo})
	desc := r.describe(s, args, s.Dest)
	if !r.control(s, r.call(s, args, "control "+desc), desc, true) {
		return nil, false
	}
	var judged []Tool
	for _, t := range later {
		largs := r.laterArgs(t)
		ldesc := r.describe(t, largs) + " after " + desc
		if res := r.call(t, largs, "control "+ldesc); res == nil || res.Refused() {
			r.p.Notef("control: %s did not succeed (%s): its later calls are not judged", ldesc, res.Brief())
			continue
		}
		judged = append(judged, t)
	}
	r.resetWorkdir(s)
	return judged, true
}
