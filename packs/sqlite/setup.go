package sqlite

import (
	"fmt"

	"github.com/sealmark/sealmark/internal/sandbox"
	"github.com/sealmark/sealmark/packs"
)

// Placeholder is the sqlite pack's database, root/app.db.
const Placeholder = "{sqlite}"

// prepare is the pack's set-up: when the server is pointed at {sqlite},
// root/app.db and canary/other.db are made once the sandbox is, the
// placeholder is defined and shown by its name, both secrets are masked
// in every output, and the probes see the pair (Pass.Sandbox.SQLite).
func prepare(s *packs.Setup) error {
	if !s.Mentions(Placeholder) {
		return nil
	}
	s.OnOpen(func(o *packs.Opened) error {
		if o.Sandbox == nil {
			return nil
		}
		db, err := sandbox.StageSQLite(o.Sandbox.Root, o.Sandbox.Canary)
		if err != nil {
			return fmt.Errorf("staging %s: %v", Placeholder, err)
		}
		o.Define("sqlite", db.App)
		o.Stable(db.App, Placeholder)
		o.Secret(db.AppSecret, "<db-secret>")
		o.Secret(db.OtherSecret, "<canary-db>")
		view := &packs.SQLiteDB{App: db.App, Other: db.Other, AppSecret: db.AppSecret, OtherSecret: db.OtherSecret}
		o.View(func(v *packs.Sandbox) { v.SQLite = view })
		return nil
	})
	return nil
}
