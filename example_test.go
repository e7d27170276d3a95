package sealmark_test

import (
	"os"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/table"
	"github.com/sealmark/sealmark/sealmarktest"
)

// TestMain is what an MCP server's repository puts in its tests. Here the
// test binary also serves the bundled example server (fixture.Dispatch), so
// the example needs nothing but Go.
func TestMain(m *testing.M) {
	fixture.Dispatch()
	sealmarktest.Main(m)
}

// notesCases are five cases the notes server pins for itself. Each runs as
// a subtest: go test -run Packs/mine/add-stays-inside.
var notesCases = []table.Row{{
	Name:     "add-stays-inside",
	Tool:     "add_note",
	Args:     map[string]any{"title": "{token}"},
	Expect:   []table.Expect{table.NoFileChangesOutsideRoot(), table.NotRan("sm-canary")},
	Severity: packs.Critical,
}, {
	Name:   "reads-note",
	Tool:   "read_note",
	Args:   map[string]any{"name": "groceries"},
	Expect: []table.Expect{table.Succeeds(), table.Contains("remember the milk"), table.NoCanary()},
}, {
	Name:   "refuses-dotdot",
	Tool:   "read_note",
	Args:   map[string]any{"name": "{sandbox}/../canary/secret.txt"},
	Expect: []table.Expect{table.NoCanary(), table.NotContains("{canary_file}")},
}, {
	Name:   "no-callback",
	Tool:   "list_notes",
	Args:   map[string]any{"url": "{listener}/{token}"},
	Expect: []table.Expect{table.NoConnection()},
}, {
	Name:   "answers-fast",
	Tool:   "slow_op",
	Args:   map[string]any{"seconds": 0},
	Expect: []table.Expect{table.Succeeds(), table.Within(5 * time.Second)},
}}

// TestPacks runs every pack, and the server's own cases, against a
// well-behaved notes server built from this repository: go test -run
// Packs/core, or -run Packs/core/secret-echo for one probe. For a Node
// server the Config would read
//
//	sealmarktest.Config{
//		Command: "node",
//		Args:    []string{"{cwd}/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "{sandbox}"},
//	}
//
// Against a server that writes outside its root, the first case fails with
//
//	--- FAIL: TestPacks/mine/add-stays-inside (0.01s)
//	    server.go:103: USER-ADD-STAYS-INSIDE critical: row add-stays-inside: a file changed outside root/: created root-evil/written-by-server.txt (23 bytes)
//	        evidence: files: created root-evil/written-by-server.txt (23 bytes)
func TestPacks(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sealmarktest.Server(t, sealmarktest.Config{
		Command: self,
		Args:    []string{fixture.Verb, "-name=example-notes"},
		Probes:  notesCases,
	})
}
