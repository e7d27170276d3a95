package sandbox

import (
	"testing"

	"github.com/sealmark/sealmark/internal/smbin"
)

// BenchmarkNew times making and removing a sandbox (with its canary git
// repository where git is installed): with bin/sm-* linked to a copy of
// the sm-* helper (copied and run once to check it), and linked to the
// harness binary (smbin.HelperEnv=off).
//
//	go test ./internal/sandbox/ -run '^$' -bench BenchmarkNew -benchtime 50x
func BenchmarkNew(b *testing.B) {
	for _, mode := range []string{"helper", "harness"} {
		b.Run(mode, func(b *testing.B) {
			if mode == "harness" {
				b.Setenv(smbin.HelperEnv, "off")
			} else {
				b.Setenv(smbin.HelperEnv, "on")
				if _, err := smbin.InstallHelper(b.TempDir()); err != nil {
					b.Skipf("no helper: %v", err) // and the build stays out of the timing
				}
			}
			parent := b.TempDir()
			for b.Loop() {
				s, err := New(Options{Parent: parent})
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Remove(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/op")
		})
	}
}
