package fs_test

import (
	"os"
	"testing"

	"github.com/sealmark/sealmark/internal/fixture/fsserver"
	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/packs/fs"
	"github.com/sealmark/sealmark/packs/internal/packtest"
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
		if _, err := packtest.Run(dir, config(fs.Pack, self, fsserver.Verb, "{sandbox}")); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFullRunReferenceLatest(b *testing.B) {
	script := realserver.FilesystemLatest.CwdArg(b)
	dir := b.TempDir()
	for range b.N {
		if _, err := packtest.Run(dir, config(fs.Pack, "node", script, "{sandbox}")); err != nil {
			b.Fatal(err)
		}
	}
}
