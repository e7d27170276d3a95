package sqlite

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// dbWrite names a tool whose name asks for a write to the database
// (create_table, drop_table, insert_row, write_query, execute, import):
// its writes are what it was asked for.
var dbWrite = regexp.MustCompile(`(?i)(create|drop|alter|insert|update|delete|upsert|write|exec|run|import|restore|migrate|truncate|rename|seed)`)

// sideEffectWrite calls every tool whose name asks for no write to the
// database (a notes or insight tool, a lister, a describer) and every SQL
// tool that says it only reads, with its control: any schema or rows the
// harness's own connection then sees in app.db are a write the user did
// not ask for, named with the call that made it.
var sideEffectWrite = packs.Probe{
	ID: "SQLITE-SIDE-EFFECT-WRITE", Name: "side-effect-write", Severity: packs.Medium, CWE: "CWE-471", Active: true,
	Doc: "a tool that asks for no write to the database (notes, insights, listing, describing, read-only SQL) must not change its schema or rows",
	Run: func(p *packs.Pass) {
		r := start(p)
		if r == nil {
			return
		}
		var tools []Tool
		db := Tools(p.Surface)
		for _, st := range p.Surface.Tools {
			i := slices.IndexFunc(db, func(t Tool) bool { return t.Name == st.Name })
			switch {
			case i >= 0 && db[i].Role == SQL && db[i].ReadOnly:
				tools = append(tools, db[i])
			case i >= 0 && db[i].Role == Ident && !db[i].Creates && !dbWrite.MatchString(st.Name):
				tools = append(tools, db[i])
			case i < 0 && !dbWrite.MatchString(st.Name):
				tools = append(tools, Tool{Name: st.Name, Schema: st.InputSchema})
			}
		}
		if len(tools) == 0 {
			p.NotApplicable("every tool asks for a write to the database by its name, or takes SQL without saying it only reads")
			return
		}
		for _, t := range tools {
			value, desc := "", sideDescribe(t)
			switch t.Role {
			case SQL:
				value = "SELECT name FROM items ORDER BY id"
				desc = r.describe(t, value)
			case Ident:
				value = "items"
				desc = r.describe(t, value)
			}
			if r.call(t, value, desc) == nil {
				continue
			}
			if ch := r.changed(nil); len(ch) > 0 {
				f := p.Reportf("%s changed app.db, which it was not asked to write: %s", desc, r.shown(strings.Join(ch, ", ")))
				f.Evidencef("sqlite", "the harness's own connection to {sqlite} saw %s", r.shown(strings.Join(ch, ", ")))
			}
		}
		r.finish()
	},
}

// sideDescribe names a call of a tool with synthesized arguments:
// append_insight(insight=…).
func sideDescribe(t Tool) string {
	var names []string
	for _, pr := range packs.Props(t.Schema) {
		if pr.Required {
			names = append(names, pr.Name+"=…")
		}
	}
	return fmt.Sprintf("%s(%s)", t.Name, strings.Join(names, ", "))
}
