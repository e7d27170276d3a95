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
		"DROP/**/TABLE notes",
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
// sees it. With dress set, every other SQL tool gets the writes it refuses
// alone dressed by dress (stacked, or spelt otherwise): a keyword or
// prefix guard on a write tool (create_table that checks CREATE TABLE,
// write_query that refuses DROP) is judged by effect too.
func readOnlyProbe(id, name, doc string, statements func(*run) []string, dress func(r *run, c channel, write string) []string) packs.Probe {
	return packs.Probe{
		ID: id, Name: name, Severity: packs.Critical, CWE: "CWE-89", Doc: doc, Active: true,
		Run: func(p *packs.Pass) {
			r := start(p)
			if r == nil {
				return
			}
			tools := r.tools(SQL, true)
			var others []Tool
			if dress != nil {
				for _, t := range r.tools(SQL, false) {
					if !t.ReadOnly {
						others = append(others, t)
					}
				}
			}
			if len(tools)+len(others) == 0 {
				if dress == nil {
					p.NotApplicable("no SQL tool says it only reads (readOnlyHint, or read/select in its name, or read-only in its description)")
				} else {
					p.NotApplicable("no tool takes SQL")
				}
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
			for _, t := range others {
				if c, ok := r.prove(t); ok {
					r.guarded(c, dress)
				}
			}
			r.finish()
		},
	}
}

// guarded are the writes a guard on a write tool is meant to stop.
var guardedWrites = []string{"DROP TABLE notes", "DELETE FROM notes"}

// guarded tries each guarded write alone through c; each one c refuses
// (app.db unchanged) is dressed, and every dress that changes app.db is a
// finding naming the call and the refusal it got round.
func (r *run) guarded(c channel, dress func(r *run, c channel, write string) []string) {
	for _, w := range guardedWrites {
		alone := r.describe(c.Tool, w)
		if r.call(c.Tool, w, alone) == nil {
			return
		}
		if len(r.changed(nil)) > 0 {
			continue // the tool may run it: there is no guard to get round
		}
		for _, q := range dress(r, c, w) {
			desc := r.describe(c.Tool, q)
			if r.call(c.Tool, q, desc) == nil {
				return
			}
			if ch := r.changed(r.skip(c)); len(ch) > 0 {
				f := r.p.Reportf("%s ran a write the tool refuses alone (%s changed nothing): %s", desc, alone, r.shown(strings.Join(ch, ", ")))
				f.Evidencef("sqlite", "the harness's own connection to {sqlite} saw %s", r.shown(strings.Join(ch, ", ")))
			}
		}
	}
}

// stackedBehind stacks a write behind a statement of the tool's own kind.
func stackedBehind(r *run, c channel, write string) []string {
	return []string{r.prefix(c) + "; " + write, r.prefix(c) + ";" + write}
}

// spelt is a write spelt to pass a keyword filter: other whitespace, a
// comment between or before the words, other case.
func spelt(_ *run, _ channel, write string) []string {
	first, rest, _ := strings.Cut(write, " ")
	return []string{
		first + "\t" + rest,
		first + "/**/" + rest,
		strings.ToLower(write),
		mixedCase(write),
		"/* sealmark */ " + write,
		"-- sealmark\n" + write,
	}
}

// mixedCase alternates the case of the letters: dRoP TaBlE.
func mixedCase(s string) string {
	b := []byte(strings.ToLower(s))
	up := false
	for i, ch := range b {
		if ch >= 'a' && ch <= 'z' {
			if up {
				b[i] = ch - 'a' + 'A'
			}
			up = !up
		}
	}
	return string(b)
}

var (
	readOnlyWrite = readOnlyProbe("SQLITE-READONLY-WRITE", "read-only-write",
		"a read-only SQL tool must not run INSERT, UPDATE, DELETE or DDL", writes, nil)
	multiStatement = readOnlyProbe("SQLITE-MULTI-STATEMENT", "multi-statement",
		"an SQL tool must not run a write stacked behind a statement it accepts (SELECT 1; DROP TABLE t, CREATE TABLE x (a); DROP TABLE t) when it is read-only or refuses that write alone", stacked, stackedBehind)
	guardBypass = readOnlyProbe("SQLITE-GUARD-BYPASS", "guard-bypass",
		"an SQL tool must refuse the writes it refuses whatever their dress: tabs, comments, mixed case (and, when read-only, REPLACE INTO, WITH ... DELETE, PRAGMA)", bypasses, spelt)
)
