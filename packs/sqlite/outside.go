package sqlite

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// attachRead asks every SQL tool to attach canary/other.db and read its
// secrets table. The server was pointed at app.db; another database file
// on the machine is outside what it was given.
var attachRead = packs.Probe{
	ID: "SQLITE-ATTACH-READ", Name: "attach-read", Severity: packs.Critical, CWE: "CWE-552",
	Doc: "an SQL tool must not read another database file through ATTACH DATABASE (canary/other.db, outside the root)",
	Run: func(p *packs.Pass) {
		r := start(p)
		if r == nil {
			return
		}
		tools := r.tools(SQL, false)
		if len(tools) == 0 {
			p.NotApplicable("no tool takes SQL")
			return
		}
		alias := r.ident("r")
		for _, t := range tools {
			if !r.control(t) {
				continue
			}
			for _, q := range []string{
				fmt.Sprintf("ATTACH DATABASE '%s' AS %s", r.db.Other, alias),
				fmt.Sprintf("SELECT secret FROM %s.secrets", alias),
				fmt.Sprintf("DETACH DATABASE %s", alias),
			} {
				r.call(t, q, r.describe(t, q)) // call reports the secret wherever it shows
			}
		}
		r.finish()
	},
}

// writeOutside asks every SQL tool to make a database file in root-evil
// (ATTACH DATABASE then CREATE TABLE, and VACUUM INTO), and every backup
// tool to write one there; the harness looks for the files itself and the
// files observer names anything else changed outside the root.
var writeOutside = packs.Probe{
	ID: "SQLITE-WRITE-OUTSIDE", Name: "write-outside", Severity: packs.Critical, CWE: "CWE-73", Active: true,
	Doc: "ATTACH DATABASE, VACUUM INTO and backup or export tools must not write a file outside the root",
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
		for _, t := range sqlTools {
			if !r.control(t) {
				continue
			}
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
			r.judgeOutside(strings.Join(descs, " then "), attached)
			q := fmt.Sprintf("VACUUM INTO '%s'", vacuumed)
			r.call(t, q, r.describe(t, q))
			r.judgeOutside(r.describe(t, q), vacuumed)
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

// judgeOutside reports the files made outside the root by what.
func (r *run) judgeOutside(what string, paths ...string) {
	out := r.outside(paths...)
	if len(out) == 0 {
		return
	}
	f := r.p.Reportf("%s wrote outside the root: %s", what, r.shown(out[0]))
	for _, o := range out {
		f.Evidencef("files", "%s", r.shown(o))
	}
}
