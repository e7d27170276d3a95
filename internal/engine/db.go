package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/redact"

	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/db"
)

// dsnPlaceholder is the db pack's per-role connection string.
const dsnPlaceholder = "{dsn}"

// dbCatalog gives the catalog's db pack the run's admin DSN, or makes it
// not applicable when the server's configuration does not name {dsn}: the
// pack's roles and oracle mean nothing for a server that connects
// elsewhere.
func (c *Config) dbCatalog(cat []packs.Pack) []packs.Pack {
	i := slices.IndexFunc(cat, func(p packs.Pack) bool { return p.Name == "db" })
	if i < 0 {
		return cat
	}
	cat = slices.Clone(cat)
	switch {
	case !c.mentions(dsnPlaceholder):
		cat[i] = db.NotPointed(cat[i])
	case c.DBAdminDSN != "":
		cat[i] = db.New(c.DBAdminDSN)
	}
	return cat
}

// openDB makes the run's database when the server's configuration names
// {dsn}, so every start has one: {dsn} is the reader role's connection
// string, except on the db pack's own starts (one per role). Without an
// admin DSN, or with its database unreachable, {dsn} stays undefined and
// the warning says why; the start that needs it then fails naming it.
func (e *Engine) openDB() error {
	if !e.cfg.mentions(dsnPlaceholder) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := db.Open(ctx, e.cfg.DBAdminDSN)
	switch {
	case errors.Is(err, packs.ErrNotApplicable):
		e.warn("{dsn} is defined only on the db pack's own starts: " + err.Error())
		return nil
	case err != nil:
		return fmt.Errorf("making the database for {dsn}: %v", err)
	}
	e.db = d
	for _, s := range d.Secrets() {
		e.redactor.Secret(s, redact.MaskRedacted)
	}
	e.vars["dsn"], e.vars["db_name"], e.vars["db_role"] = d.Reader.DSN, d.Name, "reader"
	// The contained server reaches the database as a declared service,
	// and nothing else: declared here unless the configuration did.
	if svc, err := contain.ParseService("tcp:" + d.Address()); err == nil && !slices.Contains(e.cfg.Services, svc.String()) {
		e.cfg.Services = append(slices.Clone(e.cfg.Services), svc.String())
	}
	return nil
}

// closeDB drops the run's database, if it made one.
func (e *Engine) closeDB() {
	if e.db != nil {
		e.db.Close()
	}
}
