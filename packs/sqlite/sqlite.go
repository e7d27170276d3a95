package sqlite

import (
	"fmt"

	"github.com/sealmark/sealmark/packs"
)

// Pack is the sqlite pack.
var Pack = packs.Pack{
	Name: "sqlite",
	Doc:  "an SQLite server must keep read-only tools read-only and its guards whole, build no SQL from names, reach no database file but its own, and write only what it is asked to",
	Applies: func(s *packs.Surface) (bool, string) {
		if len(Tools(s)) > 0 {
			return true, ""
		}
		return false, fmt.Sprintf("no database tool: none of the %d tools takes SQL (an argument named sql, query or statement), a table or column name, or a backup path", len(s.Tools))
	},
	Prepare: prepare,
	// Its probes change the database file, which outlives every start
	// anyway, and ask nothing of a fresh server.
	SharesStart: true,
	Probes:      []packs.Probe{readOnlyWrite, multiStatement, guardBypass, identifierInjection, attachRead, writeOutside, sideEffectWrite},
}
