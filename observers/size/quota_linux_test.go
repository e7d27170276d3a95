package size

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/quota"
	"github.com/sealmark/sealmark/observers"
)

// quotaDir mounts a quota of n bytes on a new directory, or skips saying
// why this machine cannot.
func quotaDir(t *testing.T, n int64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "q")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := quota.Mount(dir, n); err != nil {
		t.Skipf("no quota here: %v", err)
	}
	t.Cleanup(func() { _ = quota.Unmount(dir) })
	return dir
}

// TestQuotaFullIsTheCrossing: on a quota the watcher reads the
// filesystem's counters and records the limit once the
// filesystem is full, never a total past it; half full is no record.
func TestQuotaFullIsTheCrossing(t *testing.T) {
	const limit = 4 << 20
	top := quotaDir(t, limit)
	ex := newExceeds()
	w := Start(Options{Top: top, MaxBytes: limit, Interval: 10 * time.Millisecond, OnExceed: ex.call, Quota: true})
	t.Cleanup(func() { w.Close() })

	w.Begin("tok-half")
	if err := write(filepath.Join(top, "half.bin"), limit/2); err != nil {
		t.Fatal(err)
	}
	if rs := w.Collect("tok-half"); len(rs) != 0 {
		t.Fatalf("half full gave records: %v", rs)
	}
	if got := w.Total(); got < limit/2 || got > limit/2+(64<<10) {
		t.Errorf("Total %d after writing half of %d", got, limit)
	}

	w.Begin("tok-bomb")
	err := write(filepath.Join(top, "bomb.bin"), 2*limit)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("the bomb's write: %v, want ENOSPC", err)
	}
	if total := ex.wait(t); total > limit {
		t.Errorf("OnExceed saw %d bytes, past the %d-byte quota", total, limit)
	}
	rs := w.Collect("tok-bomb")
	if len(rs) != 1 || rs[0].Kind != observers.KindSize || rs[0].Data["op"] != "exceeded" || !strings.Contains(rs[0].Summary, "filled its 4194304-byte limit") {
		t.Fatalf("records: %v", rs)
	}
	if ex.count() != 1 {
		t.Errorf("OnExceed called %d times for one filling", ex.count())
	}
}
