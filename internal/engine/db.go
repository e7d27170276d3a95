package engine

import (
	"slices"

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
