package exec

import (
	"strings"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// workdirs are working directories outside the root, each with what it is.
var workdirs = []struct{ key, what, dir string }{
	{"dotdot", "a relative ..", ".."},
	{"traversal", "{sandbox}/..", "{sandbox}/.."},
	{"prefix-sibling", "the sibling root-evil", "{sandbox}-evil"},
	{"link-dir", "root/link-dir, a link to the canary directory", "{sandbox}/link-dir"},
	{"canary", "the canary directory", "{top}/canary"},
	{"filesystem-root", "/", "/"},
}

func workdirEscape(hints []Hint) packs.Probe {
	return packs.Probe{
		ID: "EXEC-WORKDIR-ESCAPE", Name: "workdir-escape", Severity: packs.High, CWE: "CWE-22", Active: true,
		Doc: "a tool that takes a working directory must keep it inside the root: .., root-evil, a linked directory, the canary or / may not become a child's working directory",
		Run: func(p *packs.Pass) {
			r := start(p, hints)
			if r == nil {
				return
			}
			if p.Observed == nil {
				p.NotApplicable("no process observer on this run, so a child's working directory cannot be seen")
				return
			}
			var tools []Tool
			for _, t := range r.restricted() {
				if t.Cwd != "" {
					tools = append(tools, t)
				}
			}
			if r.decided {
				return
			}
			if len(tools) == 0 && len(r.failed) == 0 {
				p.NotApplicable("no command tool that restricts what it runs takes a working directory")
				return
			}
			rep := strings.NewReplacer("{sandbox}", p.Sandbox.Root, "{top}", p.Sandbox.Top)
			for _, t := range tools {
				ctl := payload{line: "sm-echo " + r.marker("cwd-ctl"), cwd: p.Sandbox.Root}
				r.call(t, ctl, "control "+describe(t, ctl))
				if recs := r.ran("sm-echo", "cwd-ctl"); len(recs) == 0 || !inside(recs[0].Data[observers.KeyCwd]) {
					r.failed = append(r.failed, t.Name+": sm-echo did not run in the root when asked to")
					continue
				}
				for _, w := range workdirs {
					pl := payload{line: "sm-echo " + r.marker("cwd-"+w.key), cwd: rep.Replace(w.dir)}
					r.call(t, pl, describe(t, pl))
					if r.dead {
						break
					}
					for _, rec := range r.ran("sm-echo", "cwd-"+w.key) {
						if !inside(rec.Data[observers.KeyCwd]) {
							p.Reportf("%s ran sm-echo in %s, outside the root", describe(t, pl), rec.Data[observers.KeyCwd]).
								Evidencef("process", "sm-echo ran in %s: %s", rec.Data[observers.KeyCwd], shellLine(packs.Argv(rec)))
							break
						}
					}
				}
			}
			r.finish()
		},
	}
}

// inside reports whether a recorded working directory (with the sandbox's
// stable names) is the root or below it, not through root/link-dir.
func inside(cwd string) bool {
	if cwd != "{sandbox}" && !strings.HasPrefix(cwd, "{sandbox}/") {
		return false
	}
	return cwd != "{sandbox}/link-dir" && !strings.HasPrefix(cwd, "{sandbox}/link-dir/")
}
