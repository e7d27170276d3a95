package sealmark_test

import (
	"os"
	"testing"

	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/sealmarktest"
)

// TestMain is what an MCP server's repository puts in its tests. Here the
// test binary also serves the bundled example server (fixture.Dispatch), so
// the example needs nothing but Go.
func TestMain(m *testing.M) {
	fixture.Dispatch()
	sealmarktest.Main(m)
}

// TestPacks runs every pack against a well-behaved notes server built from
// this repository: go test -run Packs/core, or -run Packs/core/secret-echo
// for one probe. For a Node server the Config would read
//
//	sealmarktest.Config{
//		Command: "node",
//		Args:    []string{"{cwd}/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "{sandbox}"},
//	}
func TestPacks(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sealmarktest.Server(t, sealmarktest.Config{
		Command: self,
		Args:    []string{fixture.Verb, "-name=example-notes"},
	})
}
