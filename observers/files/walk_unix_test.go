//go:build unix

package files

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// reference walks top with the standard library alone: the independent
// answer Walk must agree with.
func reference(t *testing.T, top string, dirs []string, hashMax int64) map[string]Entry {
	t.Helper()
	out := map[string]Entry{}
	for _, d := range dirs {
		err := filepath.WalkDir(filepath.Join(top, d), func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := os.Lstat(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(top, p)
			rel = filepath.ToSlash(rel)
			st := fi.Sys().(*syscall.Stat_t)
			e := Entry{Path: rel, Type: typeOf(fi.Mode()), Size: fi.Size(), Mode: fi.Mode(), MTime: fi.ModTime(), Ino: st.Ino}
			switch e.Type {
			case TypeLink:
				e.Target, _ = os.Readlink(p)
			case TypeFile:
				if e.Size <= hashMax {
					b, err := os.ReadFile(p)
					if err != nil {
						return err
					}
					sum := sha256.Sum256(b)
					e.Hash = hex.EncodeToString(sum[:8])
				}
			}
			out[rel] = e
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestWalkMatchesReference(t *testing.T) {
	top := sandbox(t)
	mkdir(t, filepath.Join(top, "root", "a", "b", "c"))
	write(t, filepath.Join(top, "root", "a", "b", "c", "deep.txt"), "deep")
	write(t, filepath.Join(top, "root", "empty"), "")
	write(t, filepath.Join(top, "home", "big"), strings.Repeat("x", DefaultHashMax+1))
	write(t, filepath.Join(top, "home", "exact"), strings.Repeat("y", DefaultHashMax))
	must(t, os.Symlink("../canary/secret.txt", filepath.Join(top, "root", "link-file")))
	must(t, os.Symlink("../canary", filepath.Join(top, "root", "link-dir")))
	must(t, os.Symlink("/etc", filepath.Join(top, "root", "abs")))
	must(t, os.Symlink(".", filepath.Join(top, "root", "loop")))
	must(t, syscall.Mkfifo(filepath.Join(top, "tmp", "fifo"), 0o600))
	must(t, os.Chmod(filepath.Join(top, "root", "empty"), 0o4711))

	got, err := Walk(top, nil, 0)
	must(t, err)
	want := reference(t, top, DefaultDirs, DefaultHashMax)
	if got.Len() != len(want) {
		t.Errorf("Walk held %d entries, want %d", got.Len(), len(want))
	}
	for p, w := range want {
		g, ok := got.Entry(p)
		if !ok {
			t.Errorf("%s: missing from Walk", p)
			continue
		}
		if !g.same(w) {
			t.Errorf("%s: Walk = %s, want %s", p, describe(g), describe(w))
		}
	}
	for _, p := range got.Paths() {
		if strings.HasPrefix(p, "bin") {
			t.Errorf("%s: bin/ is never watched", p)
		}
	}
	if e, _ := got.Entry("home/big"); e.Hash != "" {
		t.Errorf("home/big is larger than the hash limit but has hash %q", e.Hash)
	}
	if e, _ := got.Entry("home/exact"); e.Hash == "" {
		t.Errorf("home/exact is at the hash limit and was not hashed")
	}
	if problems := coherent(got); len(problems) > 0 {
		t.Errorf("index: %v", problems)
	}
}
