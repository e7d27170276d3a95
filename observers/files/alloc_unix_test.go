//go:build unix

package files

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// blocksUnder is what the file system gives the watched directories under
// top (the directories themselves included), each inode once.
func blocksUnder(t *testing.T, top string) int64 {
	t.Helper()
	seen := map[uint64]bool{}
	var total int64
	for _, d := range DefaultDirs {
		err := filepath.WalkDir(filepath.Join(top, d), func(_ string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := de.Info()
			if err != nil {
				return err
			}
			st := fi.Sys().(*syscall.Stat_t)
			if !fi.IsDir() && seen[st.Ino] {
				return nil
			}
			seen[st.Ino] = true
			total += st.Blocks * 512
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return total
}

// TestAllocated: after every Collect the observer's running total equals
// a walk's count of the watched tree: files written, grown, hard-linked,
// renamed, deleted and a sparse file (its blocks, not its size).
func TestAllocated(t *testing.T) {
	top := sandbox(t)
	p := func(rel string) string { return filepath.Join(top, rel) }
	obs := observe(t, Options{Top: top})
	check := func(step string) {
		t.Helper()
		obs.Collect(step)
		if got, want := obs.Allocated(), blocksUnder(t, top); got != want {
			t.Errorf("%s: Allocated() = %d, want %d", step, got, want)
		}
	}
	check("start")
	write(t, p("root/a"), string(make([]byte, 100_000)))
	check("write")
	write(t, p("root/a"), string(make([]byte, 300_000)))
	check("grow")
	must(t, os.Link(p("root/a"), p("tmp/a-link")))
	check("hard link")
	must(t, os.Rename(p("root/a"), p("home/a")))
	check("rename")
	f, err := os.Create(p("root-evil/sparse"))
	must(t, err)
	must(t, f.Truncate(1<<30))
	must(t, f.Close())
	check("sparse")
	mkdir(t, p("home/d/e"))
	write(t, p("home/d/e/f"), "x")
	check("mkdir")
	must(t, os.Remove(p("home/a")))
	check("one name gone")
	must(t, os.Remove(p("tmp/a-link")))
	must(t, os.RemoveAll(p("home/d")))
	check("deleted")
	if obs.Allocated() > 1<<20 {
		t.Errorf("Allocated() = %d after the sparse 1 GiB file: its size was counted, not its blocks", obs.Allocated())
	}
}
