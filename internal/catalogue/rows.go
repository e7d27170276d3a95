package catalogue

import (
	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/packs/table"
)

// The configuration checks the user's rows with the table pack's own
// check as it reads them, so a bad row is named at its line; every door
// imports the catalogue, so every door's configuration does.
func init() { config.CheckRows = checkRows }

// checkRows is whether rows make the user's pack.
func checkRows(rows []map[string]any) error {
	parsed, err := table.Rows(rows)
	if err == nil {
		_, err = table.Pack(config.UserPack, parsed)
	}
	return err
}
