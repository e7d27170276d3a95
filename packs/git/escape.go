package git

import (
	"fmt"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// place is one way of naming a repository outside the root.
type place struct {
	key, id string
	what    string
	cwe     string
	class   string
	repos   []string // repository paths, templates
}

const (
	escapeClass = "CVE-2025-68145 class"
	createClass = "CVE-2025-68143 class"
	injectClass = "CVE-2025-68144 class"
)

var places = []place{
	{
		key: "traversal", id: "TRAVERSAL", cwe: "CWE-22", class: escapeClass,
		what:  "an absolute, ../ or relative path to canary/repo",
		repos: []string{"{sandbox_top}/canary/repo", "{sandbox}/../canary/repo", "../canary/repo", "{repo}/../../canary/repo", "{sandbox}/./..//canary/repo/"},
	},
	{
		key: "prefix-sibling", id: "PREFIX-SIBLING", cwe: "CWE-22", class: escapeClass,
		what:  "root-evil/repo, whose path starts with the root's (a prefix-only check)",
		repos: []string{"{sandbox}-evil/repo"},
	},
	{
		key: "link", id: "LINK", cwe: "CWE-59", class: escapeClass,
		what:  "root/link-repo and root/repo/canary-link, links to canary/repo",
		repos: []string{"{sandbox}/link-repo", "{repo}/canary-link"},
	},
}

// escapeProbe points every read tool's repository argument at the place
// and looks for the canary repositories' secrets in the answers.
func escapeProbe(pl place) packs.Probe {
	return packs.Probe{
		ID:       "GIT-REPO-" + pl.id,
		Name:     "repo-" + pl.key,
		Severity: packs.Critical,
		CWE:      pl.cwe,
		Doc:      fmt.Sprintf("a git tool must not read a repository outside the root through %s (%s)", pl.what, pl.class),
		Run: func(p *packs.Pass) {
			r := start(p)
			if r == nil {
				return
			}
			var tools []Tool
			for _, t := range r.tools(Read) {
				if t.Repo != "" {
					tools = append(tools, t)
				}
			}
			if len(tools) == 0 {
				p.NotApplicable("no read-only git tool takes a repository argument")
				return
			}
			for _, t := range tools {
				if !r.readControl(t) {
					continue
				}
				for _, tmpl := range pl.repos {
					args := r.args(t, map[string]any{t.Repo: r.expand(tmpl, "")})
					desc := r.describe(t, args, t.Repo)
					if res := r.call(t, args, desc); res != nil {
						r.judgeRead(t, res, args, desc)
					}
				}
			}
			r.finish()
		},
	}
}

// readControl calls the tool on root/repo: it must answer without error.
func (r *run) readControl(t Tool) bool {
	args := r.args(t, map[string]any{t.Repo: r.gs.Repo})
	desc := r.describe(t, args, t.Repo)
	return r.control(t, r.call(t, args, "control "+desc), desc, true)
}

// judgeRead reports canary content in a response.
func (r *run) judgeRead(t Tool, res *packs.Response, args map[string]any, desc string) {
	if leaked := r.leaks(res, args); len(leaked) > 0 {
		r.p.Reportf("%s returned the canary of %s, outside the root", desc, strings.Join(leaked, ", ")).
			Evidencef("response", "the result of %s contains the canary of %s (a committed file, the commit message or an untracked file's name)", t.Name, strings.Join(leaked, ", "))
	}
}
