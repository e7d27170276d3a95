package engine

import (
	"fmt"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// sqlitePlaceholder is the sqlite pack's database, root/app.db.
const sqlitePlaceholder = "{sqlite}"

// mentions reports whether the server's configuration names the
// placeholder: its arguments, environment, staged files, URL or start line.
func (c *Config) mentions(placeholder string) bool {
	texts := append([]string{c.URL, c.Start}, c.Args...)
	for _, kv := range c.Env {
		texts = append(texts, kv.Value)
	}
	for _, f := range c.Files {
		texts = append(texts, f.Path, f.Content)
	}
	for _, t := range texts {
		if strings.Contains(t, placeholder) {
			return true
		}
	}
	return false
}

// stageSQLite makes root/app.db and canary/other.db when the server is
// pointed at {sqlite}, and defines the placeholder. Both secrets are masked
// in every output.
func (e *Engine) stageSQLite() error {
	if e.sb == nil || !e.cfg.mentions(sqlitePlaceholder) {
		return nil
	}
	if err := e.sb.StageSQLite(); err != nil {
		return fmt.Errorf("staging {sqlite}: %v", err)
	}
	db := e.sb.SQLite
	e.vars["sqlite"] = db.App
	e.redactor.Stable(db.App, sqlitePlaceholder)
	e.redactor.Secret(db.AppSecret, "<db-secret>")
	e.redactor.Secret(db.OtherSecret, "<canary-db>")
	return nil
}

// sqliteView is the sqlite databases as probes see them, or nil.
func (e *Engine) sqliteView() *packs.SQLiteDB {
	if e.sb == nil || e.sb.SQLite == nil {
		return nil
	}
	db := e.sb.SQLite
	return &packs.SQLiteDB{App: db.App, Other: db.Other, AppSecret: db.AppSecret, OtherSecret: db.OtherSecret}
}
