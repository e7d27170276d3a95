package size

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// writeFile writes n bytes of real data and syncs them, so their blocks are
// allocated when the test looks.
func writeFile(t *testing.T, path string, n int) {
	t.Helper()
	if err := write(path, n); err != nil {
		t.Fatal(err)
	}
}

// write is writeFile for goroutines other than the test's.
func write(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	chunk := bytes.Repeat([]byte{'x'}, 64<<10)
	for n > 0 {
		c := chunk[:min(n, len(chunk))]
		if _, err := f.Write(c); err != nil {
			return err
		}
		n -= len(c)
	}
	return f.Sync()
}

func TestUsage(t *testing.T) {
	top := t.TempDir()
	if err := os.MkdirAll(filepath.Join(top, "a", "b", "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(top, "a", "b", "c", "one.bin"), 1<<20)
	writeFile(t, filepath.Join(top, "two.bin"), 1<<20)
	base, err := Usage(top)
	if err != nil {
		t.Fatal(err)
	}
	if base < 2<<20 || base > 3<<20 {
		t.Fatalf("Usage = %d, want about 2 MiB", base)
	}

	// A link to a big file outside is not followed.
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "big.bin"), 4<<20)
	if err := os.Symlink(filepath.Join(outside, "big.bin"), filepath.Join(top, "link")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if err := os.Symlink(outside, filepath.Join(top, "a", "dirlink")); err != nil {
		t.Fatal(err)
	}
	if got, err := Usage(top); err != nil || got > base+64<<10 {
		t.Errorf("Usage with links out = %d, %v; want about %d (links not followed)", got, err, base)
	}
	if runtime.GOOS == "windows" {
		return
	}

	// More hard links to one file count once.
	for _, name := range []string{"h1", "h2", "h3"} {
		if err := os.Link(filepath.Join(top, "two.bin"), filepath.Join(top, "a", name)); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := Usage(top); err != nil || got > base+64<<10 {
		t.Errorf("Usage with hard links = %d, %v; want about %d", got, err, base)
	}

	// A sparse file counts for its blocks, not its length.
	f, err := os.Create(filepath.Join(top, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got, err := Usage(top); err != nil || got > base+1<<20 {
		t.Errorf("Usage with a 1 GiB sparse file = %d, %v; want about %d", got, err, base)
	}
}

func TestUsageMissingTop(t *testing.T) {
	if _, err := Usage(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Error("Usage of a missing directory: no error")
	}
}

func TestUsageUnreadableDirectory(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs a Unix user that permissions apply to")
	}
	top := t.TempDir()
	locked := filepath.Join(top, "locked")
	if err := os.Mkdir(locked, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(locked, "f"), 1<<20)
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	got, err := Usage(top)
	if err == nil || !strings.Contains(err.Error(), "1 entries") {
		t.Errorf("Usage = %d, %v; want an error counting 1 unreadable entry", got, err)
	}
}

func TestUsageStops(t *testing.T) {
	top := t.TempDir()
	writeFile(t, filepath.Join(top, "f"), 4096)
	stop := make(chan struct{})
	close(stop)
	if _, err := usage(top, stop); err != errStopped {
		t.Errorf("usage with stop closed = %v, want errStopped", err)
	}
}
