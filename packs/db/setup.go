package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/packs"
)

// Placeholder is the db pack's per-role connection string.
const Placeholder = "{dsn}"

// AdminSetting is the setting naming the PostgreSQL admin connection
// string (Setup.Settings).
const AdminSetting = "db.admin_dsn"

// prepare is the pack's set-up. A server whose configuration does not
// name {dsn} makes the pack not applicable (its roles mean nothing to a
// server that connects elsewhere); db.admin_dsn gives the pack its admin
// DSN. When {dsn} is named, the run's database is made once the run
// opens, so every start has one: {dsn} is the reader role's connection
// string, except on the pack's own starts (one per role), its secrets are
// masked, and the contained server may reach the database as a declared
// service. Without an admin DSN, or with its database unreachable, {dsn}
// stays undefined and a warning says why; the start that needs it then
// fails naming it. The database is dropped when the run closes.
func prepare(s *packs.Setup) error {
	admin := s.Settings[AdminSetting]
	switch {
	case !s.Mentions(Placeholder):
		s.Use(NotPointed(New(admin)))
		return nil
	case admin != "":
		s.Use(New(admin))
	}
	var d *Database
	s.OnOpen(func(o *packs.Opened) error {
		ctx, cancel := context.WithTimeout(o.Ctx, adminBound)
		defer cancel()
		var err error
		d, err = Open(ctx, admin)
		switch {
		case errors.Is(err, packs.ErrNotApplicable):
			o.Warn(Placeholder + " is defined only on the db pack's own starts: " + err.Error())
			return nil
		case err != nil:
			return fmt.Errorf("making the database for %s: %v", Placeholder, err)
		}
		for _, sec := range d.Secrets() {
			o.Secret(sec, redact.MaskRedacted)
		}
		o.Define("dsn", d.Reader.DSN)
		o.Define("db_name", d.Name)
		o.Define("db_role", "reader")
		o.Service("tcp:" + d.Address())
		return nil
	})
	s.OnClose(func() {
		if d != nil {
			d.Close()
		}
	})
	return nil
}
