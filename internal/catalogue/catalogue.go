// Package catalogue is the list of packs Sealmark ships, in run order:
// the one place a pack is named. Both front doors (sealmarktest and
// cmd/sealmark) give it to the engine (engine.Config.Catalog); the
// engine itself knows no pack by name.
//
//	cfg := engine.Config{Command: "node", Args: []string{"server.js", "{sandbox}"}, Catalog: catalogue.All}
//
// Adding a pack is a folder under packs/ and one line here (see
// docs/adding-a-pack.md).
package catalogue

import (
	"encoding/json"

	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/core"
	"github.com/sealmark/sealmark/packs/db"
	"github.com/sealmark/sealmark/packs/effects"
	"github.com/sealmark/sealmark/packs/exec"
	"github.com/sealmark/sealmark/packs/fs"
	"github.com/sealmark/sealmark/packs/git"
	"github.com/sealmark/sealmark/packs/inherit"
	"github.com/sealmark/sealmark/packs/sqlite"
)

// All is every pack Sealmark ships, in run order.
var All = []packs.Pack{
	calibrated(core.Pack),
	fs.Pack,
	git.Pack,
	exec.Pack,
	effects.Pack,
	sqlite.Pack,
	db.Pack,
}

// calibrated labels pk's findings that a calibrated SDK gives by itself
// with that SDK (packs/inherit; Pack.Inherited): the calibration names
// core's probes.
func calibrated(pk packs.Pack) packs.Pack {
	pk.Inherited = func(transport string, init json.RawMessage, probe, message string) string {
		return inherit.Label(inherit.Server{Transport: transport, Init: init}, probe, inherit.Finding{Message: message})
	}
	return pk
}
