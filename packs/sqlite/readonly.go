package sqlite

import (
	"fmt"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// writes are plain writes of each kind: no read-only tool may run them.
func writes(r *run) []string {
	return []string{
		fmt.Sprintf("INSERT INTO notes (body) VALUES ('%s')", r.ident("")),
		"UPDATE items SET qty = qty + 1",
		"DELETE FROM notes",
		fmt.Sprintf("CREATE TABLE %s (a)", r.ident("")),
		"DROP TABLE notes",
	}
}

// stacked are writes stacked behind a harmless SELECT, for a tool that
// checks the first statement and runs them all.
func stacked(r *run) []string {
	return []string{
		"SELECT 1; DELETE FROM notes",
		"SELECT name FROM items;DROP TABLE notes",
	}
}

// bypasses are writes dressed to pass a keyword filter: other whitespace,
// comments, mixed case, other verbs, a CTE, a pragma.
func bypasses(r *run) []string {
	return []string{
		"DROP\tTABLE notes",
		"/* sealmark */ DELETE FROM notes",
		"-- sealmark\nDELETE FROM notes",
		"dElEtE FROM notes",
		fmt.Sprintf("REPLACE INTO items (id, name, qty) VALUES (1, '%s', 1)", r.ident("")),
		"WITH x AS (SELECT 1) DELETE FROM notes",
		"PRAGMA user_version = 4242",
	}
}

// readOnlyProbe runs the statements through every read-only SQL tool and
// reports each one that changed app.db, as the harness's own connection
// sees it.
func readOnlyProbe(id, name, doc string, statements func(*run) []string) packs.Probe {
	return packs.Probe{
		ID: id, Name: name, Severity: packs.Critical, CWE: "CWE-89", Doc: doc, Active: true,
		Run: func(p *packs.Pass) {
			r := start(p)
			if r == nil {
				return
			}
			tools := r.tools(SQL, true)
			if len(tools) == 0 {
				p.NotApplicable("no SQL tool says it only reads (readOnlyHint, or read/select in its name, or read-only in its description)")
				return
			}
			for _, t := range tools {
				if !r.control(t) {
					continue
				}
				for _, q := range statements(r) {
					desc := r.describe(t, q)
					if r.call(t, q, desc) == nil {
						continue
					}
					if ch := r.changed(nil); len(ch) > 0 {
						f := p.Reportf("%s changed app.db through a read-only tool: %s", desc, r.shown(strings.Join(ch, ", ")))
						f.Evidencef("sqlite", "the harness's own connection to {sqlite} saw %s", r.shown(strings.Join(ch, ", ")))
					}
				}
			}
			r.finish()
		},
	}
}

var (
	readOnlyWrite = readOnlyProbe("SQLITE-READONLY-WRITE", "read-only-write",
		"a read-only SQL tool must not run INSERT, UPDATE, DELETE or DDL", writes)
	multiStatement = readOnlyProbe("SQLITE-MULTI-STATEMENT", "multi-statement",
		"a read-only SQL tool must not run a write stacked behind a SELECT (SELECT 1; DROP TABLE t)", stacked)
	guardBypass = readOnlyProbe("SQLITE-GUARD-BYPASS", "guard-bypass",
		"a read-only SQL tool must refuse writes whatever their dress: tabs, comments, mixed case, REPLACE INTO, WITH ... DELETE, PRAGMA", bypasses)
)
