package catalogue

import (
	"fmt"
	"slices"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/table"
)

// Own is the user's rows of the settings (probes:, Settings.Probes as
// decoded) made their own pack named config.UserPack (Rows), for
// engine.Config.Own, each row that names no file of its own written in
// source ("sealmark.yaml"; "" for none): nil when there are none. Both
// front ends give it, with All, to the Config engine.FromSettings made.
func Own(s config.Settings, source string) (*packs.Pack, error) {
	if len(s.Probes) == 0 {
		return nil, nil
	}
	rows, err := table.Rows(s.Probes)
	if err != nil {
		return nil, fmt.Errorf("probes: %v", err)
	}
	return Rows(config.UserPack, rows, source)
}

// Rows makes the user's rows the pack named name (packs/table), for
// engine.Config.Own: each row that names no file of its own is written in
// source ("server_test.go"; "" or "." for none), which go test shows as
// the position of what it reports. No rows make no pack (nil).
func Rows(name string, rows []table.Row, source string) (*packs.Pack, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	if source != "" && source != "." {
		rows = slices.Clone(rows)
		for i := range rows {
			if rows[i].Source == "" {
				rows[i].Source = source
			}
		}
	}
	pk, err := table.Pack(name, rows)
	if err != nil {
		return nil, fmt.Errorf("probes: %v", err)
	}
	return &pk, nil
}
