package sqlite

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// attachRead asks every SQL tool to attach canary/other.db and read its
// secrets table. The server was pointed at app.db; another database file
// on the machine is outside what it was given. A tool that returns no
// rows (write_query beside a SELECT-only read_query) is a channel all the
// same: the attached database is read through every tool that returns
// rows (the server's connection keeps it attached), and copied into
// app.db by a statement of the tool's own kind, where the harness's own
// connection finds it; last, all of it stacked in one call. Copying
// writes, so it is tried only when the run is active; a passive run reads
// through the tools that return rows.
var attachRead = packs.Probe{
	ID: "SQLITE-ATTACH-READ", Name: "attach-read", Severity: packs.Critical, CWE: "CWE-552",
	Doc: "an SQL tool must not read another database file through ATTACH DATABASE (canary/other.db, outside the root), whether it returns the rows or copies them into the server's database",
	Run: func(p *packs.Pass) {
		r := start(p)
		if r == nil {
			return
		}
		if len(r.tools(SQL, false)) == 0 {
			p.NotApplicable("no tool takes SQL")
			return
		}
		chans := r.channels()
		alias := r.ident("r")
		attach := fmt.Sprintf("ATTACH DATABASE '%s' AS %s", r.db.Other, alias)
		read := fmt.Sprintf("SELECT secret FROM %s.secrets", alias)
		detach := fmt.Sprintf("DETACH DATABASE %s", alias)
		for _, c := range chans {
			leaked := false
			a := r.describe(c.Tool, attach)
			if r.call(c.Tool, attach, a) == nil {
				continue
			}
			for _, rd := range chans {
				if !rd.reads {
					continue
				}
				desc := r.describe(rd.Tool, read)
				if rd.Name != c.Name {
					desc = a + " then " + desc
				}
				leaked = r.leaked(r.call(rd.Tool, read, desc)) || leaked // call reports the secret wherever it shows
			}
			if q := r.copyOut(c, alias); q != "" && p.Active && r.call(c.Tool, q, r.describe(c.Tool, q)) != nil {
				leaked = r.judgeCopy(a+" then "+r.describe(c.Tool, q)) || leaked
			}
			r.call(c.Tool, detach, r.describe(c.Tool, detach))
			r.changed(nil)
			if leaked || !p.Active { // the rest writes app.db
				continue
			}
			copyOut := r.copyOut(c, alias)
			if copyOut == "" {
				copyOut = fmt.Sprintf("INSERT INTO notes (body) SELECT secret FROM %s.secrets", alias)
			}
			q := strings.Join([]string{r.prefix(c), attach, copyOut, detach}, "; ")
			if r.leaked(r.call(c.Tool, q, r.describe(c.Tool, q))) {
				continue
			}
			r.judgeCopy(r.describe(c.Tool, q))
		}
		r.finish()
	},
}

// leaked reports whether a response carries other.db's secret (call has
// reported it).
func (r *run) leaked(res *packs.Response) bool {
	return res != nil && bytes.Contains(res.Body(), []byte(r.db.OtherSecret))
}

// judgeCopy reports other.db's secret found in app.db after what, and
// resets app.db.
func (r *run) judgeCopy(what string) bool {
	table, err := holds(r.db.App, r.db.OtherSecret)
	if err != nil {
		r.p.Notef("reading app.db back after %s: %v", what, err)
	}
	r.changed(nil)
	if table == "" {
		return false
	}
	f := r.p.Reportf("%s copied the secret row of canary/other.db, a database outside the root, into app.db", what)
	f.Evidencef("sqlite", "the harness's own connection to {sqlite} found the canary of canary/other.db in table %s", r.shown(table))
	return true
}

// writeOutside asks every SQL tool to make a database file in root-evil
// (ATTACH DATABASE then CREATE TABLE, and VACUUM INTO), each alone and
// then stacked behind a statement of the tool's own kind, and every
// backup tool to write one there; the harness looks for the files itself
// and the files observer names anything else changed outside the root. A
// tool that returns no rows is tried as any other: the files are the
// oracle.
var writeOutside = packs.Probe{
	ID: "SQLITE-WRITE-OUTSIDE", Name: "write-outside", Severity: packs.Critical, CWE: "CWE-73", Active: true,
	Doc: "ATTACH DATABASE, VACUUM INTO and backup or export tools must not write a file outside the root, through any tool that takes SQL",
	Run: func(p *packs.Pass) {
		r := start(p)
		if r == nil {
			return
		}
		sqlTools, backups := r.tools(SQL, false), r.tools(Backup, false)
		if len(sqlTools)+len(backups) == 0 {
			p.NotApplicable("no tool takes SQL or a backup path")
			return
		}
		evil := func(suffix string) string {
			return filepath.Join(p.Sandbox.RootEvil, "sealmark-"+p.Token+suffix+".db")
		}
		alias := r.ident("w")
		for _, c := range r.channels() {
			t := c.Tool
			attached, vacuumed := evil("-attach"), evil("-vacuum")
			steps := []string{
				fmt.Sprintf("ATTACH DATABASE '%s' AS %s", attached, alias),
				fmt.Sprintf("CREATE TABLE %s.t (a)", alias),
				fmt.Sprintf("DETACH DATABASE %s", alias),
			}
			var descs []string
			for _, q := range steps {
				descs = append(descs, r.describe(t, q))
				r.call(t, q, r.describe(t, q))
			}
			r.changed(nil)
			if !r.judgeOutside(strings.Join(descs, " then "), attached) {
				q := strings.Join(append([]string{r.prefix(c)}, steps...), "; ")
				r.call(t, q, r.describe(t, q))
				r.changed(nil)
				r.judgeOutside(r.describe(t, q), attached)
			}
			q := fmt.Sprintf("VACUUM INTO '%s'", vacuumed)
			r.call(t, q, r.describe(t, q))
			if !r.judgeOutside(r.describe(t, q), vacuumed) {
				q = r.prefix(c) + "; " + q
				r.call(t, q, r.describe(t, q))
				r.changed(nil)
				r.judgeOutside(r.describe(t, q), vacuumed)
			}
		}
		for _, t := range backups {
			inside := filepath.Join(p.Sandbox.Root, "sealmark-"+p.Token+"-ok.db")
			res := r.call(t, inside, "control "+r.describe(t, inside))
			if res == nil {
				continue
			}
			if len(r.outside(inside)) == 0 { // outside removes it
				r.failed = append(r.failed, fmt.Sprintf("%s: a backup to {sandbox}/sealmark-{token}-ok.db did not land (%s)", t.Name, res.Brief()))
				continue
			}
			r.consume()
			abs, rel := evil("-backup"), evil("-relative")
			for _, arg := range []string{abs, filepath.Join("..", "root-evil", filepath.Base(rel))} {
				target := abs
				if !filepath.IsAbs(arg) {
					target = rel
				}
				r.call(t, arg, r.describe(t, arg))
				r.judgeOutside(r.describe(t, arg), target)
			}
		}
		r.finish()
	},
}

// judgeOutside reports the files made outside the root by what, and
// whether there were any.
func (r *run) judgeOutside(what string, paths ...string) bool {
	out := r.outside(paths...)
	if len(out) == 0 {
		return false
	}
	f := r.p.Reportf("%s wrote outside the root: %s", what, r.shown(out[0]))
	for _, o := range out {
		f.Evidencef("files", "%s", r.shown(o))
	}
	return true
}
