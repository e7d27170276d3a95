package sqlite

import (
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// identifierInjection gives every tool that builds SQL from a table or
// column name a name carrying "; DROP TABLE notes": the staged tables must
// come through unchanged (a table the tool was asked to make may appear).
var identifierInjection = packs.Probe{
	ID: "SQLITE-IDENTIFIER-INJECTION", Name: "identifier-injection", Severity: packs.Critical, CWE: "CWE-89", Active: true,
	Doc: "a structured tool that builds SQL from a table or column name must quote or refuse it, so a name carrying \"; DROP TABLE\" changes nothing else",
	Run: func(p *packs.Pass) {
		r := start(p)
		if r == nil {
			return
		}
		tools := r.tools(Ident, false)
		if len(tools) == 0 {
			p.NotApplicable("no tool builds SQL from a table or column name argument")
			return
		}
		own := func(name string) bool { return strings.Contains(name, r.ident("")) }
		for _, t := range tools {
			ok := "items"
			if t.Creates {
				ok = r.ident("_ok")
			}
			res := r.call(t, ok, "control "+r.describe(t, ok))
			if res == nil {
				continue
			}
			r.changed(own)
			if res.Refused() {
				r.failed = append(r.failed, t.Name+": "+r.describe(t, ok)+" was refused ("+brief(res)+")")
				continue
			}
			for _, name := range []string{
				r.ident("") + " (a); DROP TABLE notes; --",
				r.ident("") + `"(a); DROP TABLE "notes`,
				"items); DROP TABLE notes; --",
				"items; DROP TABLE notes; --",
			} {
				desc := r.describe(t, name)
				if r.call(t, name, desc) == nil {
					continue
				}
				if ch := r.changed(own); len(ch) > 0 {
					f := p.Reportf("%s changed app.db beyond its own table: %s", desc, r.shown(strings.Join(ch, ", ")))
					f.Evidencef("sqlite", "the harness's own connection to {sqlite} saw %s", r.shown(strings.Join(ch, ", ")))
				}
			}
		}
		r.finish()
	},
}
