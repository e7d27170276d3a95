package size

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWatcherAbandon: after Abandon no Begin, Collect or Close walks the
// tree, so a sandbox grown past the limit meanwhile is not reported and
// OnExceed is not called, and Close returns what was recorded before.
func TestWatcherAbandon(t *testing.T) {
	top := t.TempDir()
	const limit = 1 << 20
	ex := newExceeds()
	w := Start(Options{Top: top, MaxBytes: limit, Interval: time.Hour, OnExceed: ex.call})
	t.Cleanup(func() { w.Close() })
	w.Begin("before")
	writeFile(t, filepath.Join(top, "a.bin"), 2<<20)
	if recs := w.Collect("before"); len(recs) != 1 {
		t.Fatalf("Collect before Abandon = %+v, want the crossing", recs)
	}
	ex.wait(t)
	w.Begin("between") // a crossing left for Close: under the limit, then over again
	if err := os.Remove(filepath.Join(top, "a.bin")); err != nil {
		t.Fatal(err)
	}
	w.Collect("between")
	writeFile(t, filepath.Join(top, "b.bin"), 2<<20)

	w.mu.Lock()
	walks := w.walks
	w.mu.Unlock()
	w.Abandon()
	w.Begin("after")
	if recs := w.Collect("after"); len(recs) != 0 {
		t.Errorf("Collect after Abandon = %+v, want nothing", recs)
	}
	if recs := w.Close(); len(recs) != 0 {
		t.Errorf("Close after Abandon = %+v, want nothing: it takes no last sample", recs)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.walks != walks {
		t.Errorf("%d walks after Abandon, want none", w.walks-walks)
	}
	if n := ex.count(); n != 1 {
		t.Errorf("OnExceed called %d times, want once (before Abandon)", n)
	}
}
