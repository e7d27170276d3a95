package git

import (
	"github.com/sealmark/sealmark/packs"
)

// worktreePlaces are new paths outside the root a worktree tool must not
// make a worktree at. They are absolute: git resolves a relative worktree
// path against the repository, a server may resolve it against its own
// directory, and the harness must know where to look.
var worktreePlaces = []string{"{sandbox_top}/canary/{new}", "{sandbox}/../{new}", "{repo}/../../{new}", "{sandbox}-evil/{new}", "{sandbox}/link-repo/{new}"}

var worktreeOutside = packs.Probe{
	ID:       "GIT-WORKTREE-OUTSIDE",
	Name:     "worktree-outside",
	Severity: packs.Critical,
	CWE:      "CWE-22",
	Active:   true,
	Doc:      "git worktree add must not make a worktree outside the root: its worktree path is checked like a repository path (" + createClass + ")",
	Run: func(p *packs.Pass) {
		r := start(p)
		if r == nil {
			return
		}
		var tools []Tool
		for _, t := range r.tools(Worktree) {
			if t.Dest != "" && (t.Mode == "" || t.opMode() != "") {
				tools = append(tools, t)
			}
		}
		if len(tools) == 0 {
			p.NotApplicable("no git tool adds a worktree at a path it takes")
			return
		}
		for _, t := range tools {
			if r.dead || !r.createControl(t) {
				continue
			}
			for _, tmpl := range worktreePlaces {
				at := r.expand(tmpl, r.name("new"))
				r.attempt(t, r.createArgs(t, at), at)
			}
		}
		r.finish()
	},
}
