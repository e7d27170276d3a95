package quota

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// mounted mounts a quota of n bytes on a new directory, or skips the test
// saying why this machine cannot.
func mounted(t *testing.T, n int64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "q")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Mount(dir, n); err != nil {
		t.Skipf("no size-limited filesystem here: %v", err)
	}
	t.Cleanup(func() { _ = Unmount(dir) })
	return dir
}

// TestParallelWritersStopAtTheLimit: eight writers racing 256 KiB writes
// into an 8 MiB quota get ENOSPC; together they never store more than the
// limit, and the counters say the filesystem is full.
func TestParallelWritersStopAtTheLimit(t *testing.T) {
	const limit = 8 << 20
	dir := mounted(t, limit)
	if !Mounted(dir) {
		t.Fatal("Mounted is false on the quota just mounted")
	}
	var stored atomic.Int64
	var nospc atomic.Int32
	var wg sync.WaitGroup
	chunk := make([]byte, 256<<10)
	for i := range 8 {
		wg.Go(func() {
			f, err := os.Create(filepath.Join(dir, "w"+strconv.Itoa(i)))
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			for range 64 { // 16 MiB each, 128 MiB asked for in all
				n, err := f.Write(chunk)
				stored.Add(int64(n))
				if err != nil {
					if errors.Is(err, unix.ENOSPC) {
						nospc.Add(1)
					}
					return
				}
			}
		})
	}
	wg.Wait()
	if got := stored.Load(); got > limit {
		t.Errorf("writers stored %d bytes in a %d-byte quota", got, limit)
	}
	if nospc.Load() != 8 {
		t.Errorf("%d of 8 writers met ENOSPC", nospc.Load())
	}
	used, free, err := Usage(dir)
	if err != nil {
		t.Fatal(err)
	}
	if used < limit-(64<<10) || free > 64<<10 {
		t.Errorf("after filling it: used %d, free %d of %d", used, free, limit)
	}
	t.Logf("asked for 128 MiB, stored %d bytes of the %d-byte limit", stored.Load(), limit)
}

// TestUnmountTakesTheFiles: unmounting drops what was written and leaves
// the empty directory; a plain directory is not taken for a quota and
// Unmount leaves it alone.
func TestUnmountTakesTheFiles(t *testing.T) {
	dir := mounted(t, 1<<20)
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Unmount(dir); err != nil {
		t.Fatal(err)
	}
	if Mounted(dir) {
		t.Fatal("still mounted")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %d entries", len(entries))
	}
	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if Mounted(plain) {
		t.Error("a plain directory taken for a quota")
	}
	if err := Unmount(plain); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(plain, "f")); err != nil {
		t.Errorf("Unmount touched a plain directory: %v", err)
	}
}

// TestMountKeepsTheMode: the filesystem's root has the directory's mode.
func TestMountKeepsTheMode(t *testing.T) {
	dir := mounted(t, 1<<20)
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v, want 0700", fi.Mode().Perm())
	}
}
