package files

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

var benchSizes = []int{100, 10_000, 100_000}

// benchTree makes a sandbox holding n small files under root/, 100 per
// directory.
func benchTree(b *testing.B, n int) string {
	b.Helper()
	if n >= 100_000 && testing.Short() {
		b.Skip("the 100,000-file tree takes seconds to build; run without -short")
	}
	top := sandbox(b)
	for d := 0; d*100 < n; d++ {
		dir := filepath.Join(top, "root", fmt.Sprintf("d%04d", d))
		mkdir(b, dir)
		for f := 0; f < 100 && d*100+f < n; f++ {
			write(b, filepath.Join(dir, fmt.Sprintf("f%02d", f)), "content of a small file, 32 byte")
		}
	}
	return top
}

// BenchmarkCollectOneChange is the cost of one probe that changes one file:
// Begin, write, Collect.
func BenchmarkCollectOneChange(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			top := benchTree(b, n)
			obs := observe(b, Options{Top: top})
			if obs.ev == nil {
				b.Skip("file events unavailable: every Collect is a full walk")
			}
			i := 0
			for b.Loop() {
				tok := "t" + strconv.Itoa(i)
				obs.Begin(tok)
				p := filepath.Join(top, "root", fmt.Sprintf("d%04d", (i/100)%((n+99)/100)), fmt.Sprintf("f%02d", i%100))
				if err := os.WriteFile(p, []byte(tok), 0o644); err != nil {
					b.Fatal(err)
				}
				if recs := obs.Collect(tok); len(recs) != 1 {
					b.Fatalf("Collect = %q, want one modification", summaries(recs))
				}
				i++
			}
		})
	}
}

// BenchmarkWalk is the cost of the full walk (the fallback and the truth).
func BenchmarkWalk(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			top := benchTree(b, n)
			for b.Loop() {
				if _, err := Walk(top, nil, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
