package smbin

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// benchHarnessEnv names a harness binary (a built sealmark) for
// BenchmarkProgramStart/harness to link to instead of this test binary.
const benchHarnessEnv = "SEALMARK_BENCH_HARNESS"

// BenchmarkProgramStart times starting "sm-echo x" and waiting for it:
// through a link to the helper, and through a link to the harness (this
// test binary, which dispatches in TestMain as the sealmark binary does,
// or the binary SEALMARK_BENCH_HARNESS names). The harness's line also
// reports its time over the helper's, x-helper. The floor is the start of
// the smallest program there is, true, for what a start costs here at all.
//
//	go test ./internal/smbin/ -run '^$' -bench ProgramStart -benchtime 200x
//	go build -o /tmp/sealmark ./cmd/sealmark &&
//	SEALMARK_BENCH_HARNESS=/tmp/sealmark go test ./internal/smbin/ -run '^$' -bench ProgramStart -benchtime 200x
func BenchmarkProgramStart(b *testing.B) {
	var helperNs float64
	b.Run("helper", func(b *testing.B) {
		helperNs = startEcho(b, installed(b))
	})
	b.Run("harness", func(b *testing.B) {
		bin := harnessBin(b)
		if exe := os.Getenv(benchHarnessEnv); exe != "" {
			bin = b.TempDir()
			if err := os.Symlink(exe, filepath.Join(bin, "sm-echo"+exeSuffix)); err != nil {
				b.Fatal(err)
			}
		}
		if ns := startEcho(b, bin); helperNs > 0 {
			b.ReportMetric(ns/helperNs, "x-helper")
		}
	})
	b.Run("floor", func(b *testing.B) {
		p, err := exec.LookPath("true")
		if err != nil {
			b.Skip("no true program")
		}
		bin := b.TempDir()
		if err := os.Symlink(p, filepath.Join(bin, "sm-echo"+exeSuffix)); err != nil {
			b.Fatal(err)
		}
		startEcho(b, bin)
	})
}

// startEcho runs bin/sm-echo x until the benchmark has its time, reports
// ms/op and returns ns/op.
func startEcho(b *testing.B, bin string) float64 {
	p := filepath.Join(bin, "sm-echo"+exeSuffix)
	for b.Loop() {
		cmd := exec.Command(p, "x")
		cmd.Env = []string{"PATH=" + bin}
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(ns/1e6, "ms/op")
	return ns
}
