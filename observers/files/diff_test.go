package files

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// changeLines renders changes as "op path" or "op from -> path".
func changeLines(cs []Change) []string {
	var out []string
	for _, c := range cs {
		if c.From != "" {
			out = append(out, c.Op+" "+c.From+" -> "+c.Path)
		} else {
			out = append(out, c.Op+" "+c.Path)
		}
	}
	return out
}

func TestDiff(t *testing.T) {
	cases := []struct {
		name   string
		before func(top string)
		change func(top string)
		want   []string
	}{
		{"created", nil, func(top string) {
			os.WriteFile(filepath.Join(top, "root-evil", "x"), []byte("hello"), 0o644)
		}, []string{"created root-evil/x"}},
		{"modified same size", nil, func(top string) {
			os.WriteFile(filepath.Join(top, "canary", "secret.txt"), []byte("sm-canary-XXXXXXXXXXXXXXXX"), 0o644)
		}, []string{"modified canary/secret.txt"}},
		{"modified large file by mtime", func(top string) {
			os.WriteFile(filepath.Join(top, "home", "big"), []byte(strings.Repeat("a", DefaultHashMax+10)), 0o644)
		}, func(top string) {
			os.Chtimes(filepath.Join(top, "home", "big"), time.Time{}, time.Unix(1, 0))
		}, []string{"modified home/big"}},
		{"deleted", nil, func(top string) {
			os.Remove(filepath.Join(top, "root", "ok.txt"))
		}, []string{"deleted root/ok.txt"}},
		{"renamed", nil, func(top string) {
			os.Rename(filepath.Join(top, "root", "ok.txt"), filepath.Join(top, "tmp", "ok.txt"))
		}, []string{"renamed root/ok.txt -> tmp/ok.txt"}},
		{"renamed and modified: without events, not paired", nil, func(top string) {
			os.Rename(filepath.Join(top, "root", "ok.txt"), filepath.Join(top, "tmp", "ok.txt"))
			os.WriteFile(filepath.Join(top, "tmp", "ok.txt"), []byte("changed"), 0o644)
		}, []string{"deleted root/ok.txt", "created tmp/ok.txt"}},
		{"deleted and a new file made: an inode reused is not a rename", func(top string) {
			os.WriteFile(filepath.Join(top, "canary", "other"), []byte("canary content"), 0o644)
		}, func(top string) {
			os.Remove(filepath.Join(top, "canary", "other"))
			os.WriteFile(filepath.Join(top, "tmp", "new"), []byte("something else"), 0o644)
		}, []string{"deleted canary/other", "created tmp/new"}},
		{"renamed over another file", func(top string) {
			os.WriteFile(filepath.Join(top, "root", "evil"), []byte("evil"), 0o644)
		}, func(top string) {
			os.Rename(filepath.Join(top, "root", "evil"), filepath.Join(top, "canary", "secret.txt"))
		}, []string{"renamed root/evil -> canary/secret.txt", "modified canary/secret.txt"}},
		{"directory renamed: entries under it not listed again", func(top string) {
			mkdir(nil, filepath.Join(top, "root", "d", "e"))
			os.WriteFile(filepath.Join(top, "root", "d", "e", "f"), []byte("f"), 0o644)
		}, func(top string) {
			os.Rename(filepath.Join(top, "root", "d"), filepath.Join(top, "tmp", "d2"))
		}, []string{"renamed root/d -> tmp/d2"}},
		{"moved away and replaced", nil, func(top string) {
			os.Rename(filepath.Join(top, "canary", "secret.txt"), filepath.Join(top, "tmp", "s"))
			os.WriteFile(filepath.Join(top, "canary", "secret.txt"), []byte("new"), 0o644)
		}, []string{"modified canary/secret.txt", "renamed canary/secret.txt -> tmp/s"}},
		{"mode-changed", nil, func(top string) {
			os.Chmod(filepath.Join(top, "root", "ok.txt"), 0o777)
		}, []string{"mode-changed root/ok.txt"}},
		{"directory mode-changed", nil, func(top string) {
			os.Chmod(filepath.Join(top, "canary"), 0o777)
		}, []string{"mode-changed canary"}},
		{"link-created", nil, func(top string) {
			os.Symlink("../canary", filepath.Join(top, "root", "out"))
		}, []string{"link-created root/out"}},
		{"link retargeted", func(top string) {
			os.Symlink("ok.txt", filepath.Join(top, "root", "l"))
		}, func(top string) {
			os.Remove(filepath.Join(top, "root", "l"))
			os.Symlink("../canary/secret.txt", filepath.Join(top, "root", "l"))
		}, []string{"link-created root/l"}},
		{"file replaced by a link", nil, func(top string) {
			os.Remove(filepath.Join(top, "root", "ok.txt"))
			os.Symlink("../canary/secret.txt", filepath.Join(top, "root", "ok.txt"))
		}, []string{"deleted root/ok.txt", "link-created root/ok.txt"}},
		{"directory created whole", nil, func(top string) {
			mkdir(nil, filepath.Join(top, "home", "n", "m"))
			os.WriteFile(filepath.Join(top, "home", "n", "m", "x"), []byte("x"), 0o644)
		}, []string{"created home/n", "created home/n/m", "created home/n/m/x"}},
		{"hard link created", nil, func(top string) {
			os.Link(filepath.Join(top, "canary", "secret.txt"), filepath.Join(top, "root", "hl"))
		}, []string{"created root/hl"}},
		{"watched directory removed", nil, func(top string) {
			os.RemoveAll(filepath.Join(top, "canary"))
		}, []string{"deleted canary", "deleted canary/secret.txt"}},
		{"bin is not watched", nil, func(top string) {
			os.WriteFile(filepath.Join(top, "bin", "new"), []byte("x"), 0o755)
			os.WriteFile(filepath.Join(top, "top-level"), []byte("x"), 0o644)
		}, nil},
		{"nothing", nil, func(string) {}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			top := sandbox(t)
			if c.before != nil {
				c.before(top)
			}
			a, err := Walk(top, nil, 0)
			must(t, err)
			c.change(top)
			b, err := Walk(top, nil, 0)
			must(t, err)
			got := changeLines(Diff(a, b))
			want := slices.Clone(c.want)
			slices.Sort(want)
			sorted := slices.Clone(got)
			slices.Sort(sorted)
			if !slices.Equal(sorted, want) {
				t.Errorf("Diff = %q, want %q", got, want)
			}
		})
	}
}

func TestDiffSkipsUnreadable(t *testing.T) {
	a := newSnapshot()
	a.entries["root"] = Entry{Path: "root", Type: TypeDir, Ino: 1}
	a.entries["root/x"] = Entry{Path: "root/x", Type: TypeFile, Ino: 2}
	b := newSnapshot()
	b.entries["root"] = Entry{Path: "root", Type: TypeDir, Ino: 1}
	b.unreadable["root"] = "permission denied"
	if got := Diff(a, b); len(got) != 0 {
		t.Errorf("Diff across an unreadable directory = %q, want nothing", changeLines(got))
	}
	if got := Diff(b, a); len(got) != 0 {
		t.Errorf("Diff from an unreadable directory = %q, want nothing", changeLines(got))
	}
}
