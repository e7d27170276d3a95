package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWalkNeverFollowsLinks(t *testing.T) {
	top := sandbox(t)
	must(t, os.Symlink(".", filepath.Join(top, "root", "loop")))
	must(t, os.Symlink("a", filepath.Join(top, "root", "b")))
	must(t, os.Symlink("b", filepath.Join(top, "root", "a")))
	must(t, os.Symlink("/", filepath.Join(top, "root", "slash")))
	must(t, os.Symlink("../canary", filepath.Join(top, "root", "canary-dir")))
	// A watched directory replaced by a link is held as the link.
	must(t, os.RemoveAll(filepath.Join(top, "home")))
	must(t, os.Symlink("/etc", filepath.Join(top, "home")))

	s, err := Walk(top, nil, 0)
	must(t, err)
	for _, p := range []string{"root/loop", "root/a", "root/b", "root/slash", "root/canary-dir", "home"} {
		if e, ok := s.Entry(p); !ok || e.Type != TypeLink {
			t.Errorf("%s: got %+v, want a link entry", p, e)
		}
	}
	for _, p := range s.Paths() {
		for _, l := range []string{"root/loop/", "root/slash/", "root/canary-dir/", "home/"} {
			if strings.HasPrefix(p, l) {
				t.Errorf("%s: held through the link %s", p, l)
			}
		}
	}
	if e, _ := s.Entry("root/slash"); e.Target != "/" {
		t.Errorf("root/slash target = %q, want /", e.Target)
	}
}

func TestWalkMissingDirIsNotAnError(t *testing.T) {
	top := sandbox(t)
	must(t, os.RemoveAll(filepath.Join(top, "root-evil")))
	s, err := Walk(top, nil, 0)
	must(t, err)
	if _, ok := s.Entry("root-evil"); ok {
		t.Errorf("root-evil is held but does not exist")
	}
	if _, ok := s.Entry("root/ok.txt"); !ok {
		t.Errorf("root/ok.txt missing")
	}
}

func TestWalkRejectsBadDirs(t *testing.T) {
	top := sandbox(t)
	for _, d := range []string{"bin", "..", ".", "root/sub", "/etc", ""} {
		if _, err := Walk(top, []string{d}, 0); err == nil {
			t.Errorf("Walk(dirs=[%q]) = nil error, want one", d)
		}
		if _, err := New(Options{Top: top, Dirs: []string{d}}); err == nil {
			t.Errorf("New(Dirs=[%q]) = nil error, want one", d)
		}
	}
	if _, err := Walk(filepath.Join(top, "nope"), nil, 0); err == nil {
		t.Errorf("Walk of a missing top = nil error, want one")
	}
	if _, err := New(Options{}); err == nil {
		t.Errorf("New with no Top = nil error, want one")
	}
}

func TestWalkNegativeHashMaxHashesNothing(t *testing.T) {
	top := sandbox(t)
	s, err := Walk(top, nil, -1)
	must(t, err)
	if e, _ := s.Entry("root/ok.txt"); e.Hash != "" {
		t.Errorf("root/ok.txt hash = %q with hashMax -1, want none", e.Hash)
	}
}

func TestWalkDepthLimit(t *testing.T) {
	top := sandbox(t)
	p := filepath.Join(top, "tmp")
	rel := "tmp"
	for range maxDepth + 2 {
		p = filepath.Join(p, "d")
		rel += "/d"
		must(t, os.Mkdir(p, 0o755))
	}
	s, err := Walk(top, nil, 0)
	must(t, err)
	u := s.Unreadable()
	if len(u) != 1 {
		t.Fatalf("Unreadable() = %v, want one directory past the depth limit", u)
	}
	for d, why := range u {
		if depth(d) != maxDepth+1 || !strings.Contains(why, "deeper") {
			t.Errorf("unreadable %s (%s), want the directory at depth %d", d, why, maxDepth+1)
		}
		if _, ok := s.Entry(d + "/d"); ok {
			t.Errorf("%s/d held past the depth limit", d)
		}
	}
}

func TestWalkBoundsEntries(t *testing.T) {
	top := sandbox(t)
	for i := range 20 {
		write(t, filepath.Join(top, "tmp", "f"+string(rune('a'+i))), "x")
	}
	root, err := os.OpenRoot(top)
	must(t, err)
	defer root.Close()
	tr := newTree(root, DefaultDirs, DefaultHashMax, 10)
	tr.walk()
	full, err := Walk(top, nil, 0)
	must(t, err)
	for _, w := range DefaultDirs {
		held, want := tr.snap.held[w], min(under(full, w), 10)
		if held != want {
			t.Errorf("%s: held %d entries, want %d (the limit is 10 a directory)", w, held, want)
		}
	}
	if got, want := tr.snap.Dropped(), under(full, "tmp")-10; got != want {
		t.Errorf("Dropped() = %d, want %d", got, want)
	}
	if got := tr.snap.Len(); got != full.Len()-tr.snap.Dropped() {
		t.Errorf("held %d entries in all, want %d", got, full.Len()-tr.snap.Dropped())
	}
	if problems := coherent(tr.snap); len(problems) > 0 {
		t.Errorf("index: %v", problems)
	}
}

func TestOutside(t *testing.T) {
	cases := []struct {
		path string
		want bool
	}{
		{"root", false},
		{"root/x", false},
		{"root/a/b", false},
		{"root-evil/x", true},
		{"root-evil", true},
		{"rootx", true},
		{"canary/secret.txt", true},
		{"tmp/a", true},
		{"root/../canary/x", true},
		{"../root/x", true},
	}
	for _, c := range cases {
		if got := Outside(c.path, "root"); got != c.want {
			t.Errorf("Outside(%q, \"root\") = %v, want %v", c.path, got, c.want)
		}
	}
}

// under counts the entries of s in the watched directory w, itself included.
func under(s *Snapshot, w string) int {
	n := 0
	for _, p := range s.Paths() {
		if watchedDir(p) == w {
			n++
		}
	}
	return n
}
