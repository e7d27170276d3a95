package size

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// BenchmarkProbe is the size observer's cost for one probe that writes one
// file: Begin and Collect each count the whole tree (n files, 100 a
// directory), so the figure grows with the sandbox. The README's
// performance table reports it at 100,000 files.
func BenchmarkProbe(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			if n >= 100_000 && testing.Short() {
				b.Skip("the 100,000-file tree takes seconds to build; run without -short")
			}
			top := b.TempDir()
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
			w := Start(Options{Top: top, MaxBytes: 1 << 40, Interval: time.Hour})
			defer w.Close()
			i := 0
			for b.Loop() {
				tok := "t" + strconv.Itoa(i)
				w.Begin(tok)
				if err := os.WriteFile(filepath.Join(top, "d0000", "f00"), []byte(tok), 0o600); err != nil {
					b.Fatal(err)
				}
				w.Collect(tok)
				i++
			}
		})
	}
}
