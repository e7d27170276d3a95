package fs_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sealmark/sealmark/internal/fixture/fsserver"
)

// The harness's share of a full fs run (passive and active): the same
// probes against the confined Go fixture, whose own work per call is
// microseconds, cost about what the harness itself costs; against the real
// newest reference server the difference is the server's time.
//
//	go test -run '^$' -bench FullRun -benchtime 5x ./packs/fs/

func BenchmarkFullRunFixture(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for range b.N {
		if _, err := run(dir, self, fsserver.Verb, "{sandbox}"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFullRunReferenceLatest(b *testing.B) {
	if _, err := exec.LookPath("node"); err != nil {
		b.Skip("node is not on PATH")
	}
	rel := filepath.Join("..", "..", "testdata", "npm", "node_modules", "fs-latest", "dist", "index.js")
	if _, err := os.Stat(rel); err != nil {
		b.Skipf("%s is not installed (run npm ci in testdata/npm)", rel)
	}
	dir := b.TempDir()
	for range b.N {
		if _, err := run(dir, "node", "{cwd}/../../testdata/npm/node_modules/fs-latest/dist/index.js", "{sandbox}"); err != nil {
			b.Fatal(err)
		}
	}
}
