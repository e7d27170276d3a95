package sealmarktest_test

import (
	"testing"

	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/sealmarktest"
)

// A server's repository tests its stdio server with every pack. TestMain
// must call Main: Server refuses to run a server it cannot contain.
func ExampleServer() {
	// func TestMain(m *testing.M) { sealmarktest.Main(m) }
	_ = func(t *testing.T) {
		sealmarktest.Server(t, sealmarktest.Config{
			Command: "node",
			Args:    []string{"{cwd}/dist/index.js", "{sandbox}"},
		})
	}
}

// One sealmark.yaml drives both sealmark run and go test; a field set here
// overrides its key.
func ExampleConfig_configFile() {
	_ = sealmarktest.Config{
		ConfigFile: "sealmark.yaml",
		Packs:      []string{"core", "fs"},
	}
}

// An HTTP server the harness starts for its URL, with a header on every
// request (masked in every output) and a file staged into the sandbox.
func ExampleConfig_http() {
	_ = sealmarktest.Config{
		Start:   "node {cwd}/dist/http.js --port {port}",
		URL:     "http://127.0.0.1:{port}/mcp",
		Headers: map[string]string{"Authorization": "Bearer test-token"},
		Files:   map[string]string{"notes/groceries.md": "remember the milk"},
	}
}

// Findings the team accepted, each with its reason (sealmark baseline
// writes the file): they are logged, not failed; an entry that matches no
// finding fails the test.
func ExampleConfig_baseline() {
	_ = sealmarktest.Config{
		Command:  "node",
		Args:     []string{"{cwd}/dist/index.js", "{sandbox}"},
		Baseline: "testdata/sealmark-baseline.json",
		FailOn:   packs.Medium,
	}
}
