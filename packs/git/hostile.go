package git

import (
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// hostileProbe runs the tools of one side on root/hostile, whose own
// .git/config, hooks and .gitattributes run sm-canary: a server that runs
// git in a repository it was handed must not run what that repository
// configures. The finding names the tool and the key or hook that ran.
func hostileProbe(active bool) packs.Probe {
	pr := packs.Probe{
		ID:       "GIT-REPO-CONFIG-READ",
		Name:     "repo-config-read",
		Severity: packs.High,
		CWE:      "CWE-829",
		Doc:      "a read-only git tool run on a handed repository must not run the programs its .git/config, hooks or .gitattributes name (core.fsmonitor, filters; CVE-2022-24765 class)",
	}
	ops := []Op{Read}
	if active {
		pr.ID, pr.Name, pr.Active = "GIT-REPO-CONFIG-WRITE", "repo-config-write", true
		pr.Doc = "a git tool that changes a handed repository must not run the programs its .git/config, hooks or .gitattributes name (hooks, filters, core.fsmonitor; CVE-2022-24765 class)"
		ops = []Op{Write}
	}
	pr.Run = func(p *packs.Pass) {
		r := start(p)
		if r == nil {
			return
		}
		if r.gs.Hostile == "" {
			p.NotApplicable("root/hostile could not be made")
			return
		}
		var tools []Tool
		for _, t := range r.tools(ops...) {
			if t.Repo != "" {
				tools = append(tools, t)
			}
		}
		if len(tools) == 0 {
			p.NotApplicable("no %s git tool takes a repository argument", ops[0])
			return
		}
		for _, t := range tools {
			if r.dead {
				break
			}
			if !active && !r.readControl(t) || active && !r.answerControl(t) {
				continue
			}
			fill := map[string]any{t.Repo: r.gs.Hostile}
			for _, a := range t.Refs {
				if strings.Contains(strings.ToLower(a), "branch") {
					fill[a] = "other" // a checkout that switches runs post-checkout
				}
			}
			args := r.args(t, fill)
			desc := r.describe(t, args, t.Repo)
			r.call(t, args, desc)
			runs, argv := canaryRuns(r.records(), packs.HostileMarker)
			seen := map[string]bool{}
			var what []string
			for _, a := range argv {
				w := strings.TrimPrefix(a[strings.Index(a, packs.HostileMarker):], packs.HostileMarker)
				if !seen[w] {
					seen[w] = true
					what = append(what, w)
				}
			}
			if len(runs) > 0 {
				f := p.Reportf("%s ran sm-canary through %s, which the repository configures", desc, strings.Join(what, ", "))
				for _, rec := range runs {
					f.Evidencef(rec.Observer, "%s", rec.Summary)
				}
			}
		}
		r.finish()
	}
	return pr
}
