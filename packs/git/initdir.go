package git

import (
	"os"
	"path/filepath"

	"github.com/sealmark/sealmark/packs"
)

var workdirInit = packs.Probe{
	ID:       "GIT-INIT-IF-MISSING",
	Name:     "init-if-missing",
	Severity: packs.Critical,
	CWE:      "CWE-22",
	Active:   true,
	Doc:      "a tool told to initialize a repository where there is none (git_set_working_dir initializeIfNotPresent) must not run git init outside the root (" + createClass + ")",
	Run: func(p *packs.Pass) {
		r := start(p)
		if r == nil {
			return
		}
		var tools []Tool
		for _, t := range Tools(p.Surface) {
			if t.InitFlag != "" && t.Op != Init && initKey(t) != "" {
				tools = append(tools, t)
			}
		}
		if len(tools) == 0 {
			p.NotApplicable("no git tool takes a flag to initialize a repository where there is none (git init itself is create-outside's)")
			return
		}
		for _, t := range tools {
			if r.dead || !r.initControl(t) {
				continue
			}
			for _, tmpl := range outsideNew {
				at := r.expand(tmpl, r.name("new"))
				r.initAttempt(t, at, at)
			}
			for _, tmpl := range outsideDirs {
				dir := r.expand(tmpl, "")
				r.initAttempt(t, dir, filepath.Join(dir, ".git"))
			}
		}
		r.finish()
	},
}

// initArgs points the tool at dir with its initialize flag set.
func (r *run) initArgs(t Tool, dir string) map[string]any {
	return r.args(t, map[string]any{initKey(t): dir, t.InitFlag: true})
}

// initControl has the tool initialize an empty directory the harness made
// inside the root: root/ctl/.git must appear.
func (r *run) initControl(t Tool) bool {
	name := r.name("ctl")
	at := filepath.Join(r.sb.Root, name)
	if err := os.Mkdir(at, 0o700); err != nil {
		r.p.Notef("cannot make root/%s: %v", name, err)
		return false
	}
	args := r.initArgs(t, at)
	desc := r.describe(t, args, initKey(t), t.InitFlag)
	res := r.call(t, args, "control "+desc)
	_, err := os.Lstat(filepath.Join(at, ".git"))
	ok := r.control(t, res, desc, err == nil)
	r.restoreWorkdir(t)
	_ = os.RemoveAll(at)
	r.records()
	return ok
}

// initAttempt points the tool at dir outside the root, where no
// repository is: watch (dir or dir/.git) must not appear.
func (r *run) initAttempt(t Tool, dir, watch string) {
	if res := r.attempt(t, r.initArgs(t, dir), watch); res != nil && !res.Refused() {
		r.restoreWorkdir(t)
	}
}

// restoreWorkdir points a working-directory tool back at root/repo, a
// repository, so a relative path and later calls start from inside the
// root.
func (r *run) restoreWorkdir(t Tool) {
	if t.Op == Workdir {
		r.call(t, r.args(t, map[string]any{t.Dest: r.gs.Repo}), "restoring the working directory")
	}
}
