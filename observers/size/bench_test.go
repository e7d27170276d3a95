package size

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/quota"
)

// BenchmarkProbe is the size observer's cost for one probe that writes one
// file, without an estimate (Begin and Collect each count the whole tree of
// n files, 100 a directory, so the figure grows with the sandbox) and with
// one (the engine's: the files observer's running count, which the
// benchmark keeps current as the files observer would), and on a quota
// (a root harness's sandbox: the filesystem's own counters, no walk). The
// README's performance table reports them at 100,000 files.
func BenchmarkProbe(b *testing.B) {
	for _, mode := range []string{"walk", "estimate", "quota"} {
		b.Run(mode, func(b *testing.B) { benchProbe(b, mode) })
	}
}

func benchProbe(b *testing.B, mode string) {
	for _, n := range []int{100, 10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			if n >= 100_000 && testing.Short() {
				b.Skip("the 100,000-file tree takes seconds to build; run without -short")
			}
			top := b.TempDir()
			if mode == "quota" {
				top = filepath.Join(top, "q")
				if err := os.Mkdir(top, 0o700); err != nil {
					b.Fatal(err)
				}
				if err := quota.Mount(top, 1<<30); err != nil {
					b.Skipf("no quota here: %v", err)
				}
				b.Cleanup(func() { _ = quota.Unmount(top) })
			}
			for d := 0; d*100 < n; d++ {
				dir := filepath.Join(top, fmt.Sprintf("d%04d", d))
				if err := os.Mkdir(dir, 0o700); err != nil {
					b.Fatal(err)
				}
				for f := 0; f < 100 && d*100+f < n; f++ {
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d", f)), []byte("content of a small file, 32 byte"), 0o600); err != nil {
						b.Fatal(err)
					}
				}
			}
			// No ticks during the loop: only the probe's own samples count.
			o := Options{Top: top, MaxBytes: 1 << 40, Interval: time.Hour}
			var est atomic.Int64
			switch mode {
			case "estimate":
				o.Estimate = est.Load
			case "quota":
				o.MaxBytes, o.Quota = 1<<30, true
			}
			w := Start(o)
			defer w.Close()
			i := 0
			for b.Loop() {
				tok := "t" + strconv.Itoa(i)
				w.Begin(tok)
				if err := os.WriteFile(filepath.Join(top, "d0000", "f00"), []byte(tok), 0o600); err != nil {
					b.Fatal(err)
				}
				est.Add(int64(len(tok)))
				w.Collect(tok)
				i++
			}
		})
	}
}
