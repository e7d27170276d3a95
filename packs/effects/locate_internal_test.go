package effects

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sealmark/sealmark/packs"
)

// TestLocateInstall: a write in the server's own install directory is
// high when it changes code or what runs (a script, a native module, a
// manifest, anything under bin or node_modules) and medium for a data
// file kept beside the code: server-memory 2026.8.31 writes memory.jsonl
// next to its dist/index.js, its documented default (create_entities with
// an empty list creates it, checked by hand in the precision corpus).
func TestLocateInstall(t *testing.T) {
	const install = "/srv/npx/node_modules/@acme/mcp"
	p := &packs.Pass{Install: install}
	for path, want := range map[string]packs.Severity{
		install + "/dist/memory.jsonl":            packs.Medium,
		install + "/state.json":                   packs.Medium,
		install + "/dist/index.js":                packs.High,
		install + "/package.json":                 packs.High,
		install + "/build/Release/addon.node":     packs.High,
		install + "/node_modules/dep/config.json": packs.High,
		install + "/bin/helper":                   packs.High,
		"/tmp/x.json":                             packs.Medium,
		"/etc/cron.d/x":                           packs.Critical,
	} {
		_, got := locate(p, path)
		assert.Equal(t, want, got, path)
	}
}
