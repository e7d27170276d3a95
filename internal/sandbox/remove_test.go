package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestRemoveRestoresPermissionsAndStaysInside(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes")
	}
	s, err := New(Options{Parent: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// What a hostile server might leave: nested read-only and unreadable
	// directories, and links to a locked directory and file outside.
	outside := t.TempDir()
	lockedDir := filepath.Join(outside, "locked")
	lockedFile := filepath.Join(outside, "keep.txt")
	if err := os.Mkdir(lockedDir, 0o500); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lockedFile, []byte("keep"), 0o400); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(lockedDir, 0o700) })
	deep := filepath.Join(s.Root, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(deep, "f"), []byte("x"), 0o400); err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct{ target, at string }{
		{lockedDir, filepath.Join(s.Root, "a", "out-dir")},
		{lockedFile, filepath.Join(s.Root, "a", "out-file")},
	} {
		if err := os.Symlink(l.target, l.at); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []struct {
		path string
		mode os.FileMode
	}{{deep, 0o500}, {filepath.Join(s.Root, "a", "b"), 0o000}, {filepath.Join(s.Root, "a"), 0o500}, {s.Canary, 0o500}} {
		if err := os.Chmod(d.path, d.mode); err != nil {
			t.Fatal(err)
		}
	}

	if err := s.Remove(); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := os.Lstat(s.Top); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still exists after Remove (%v)", s.Top, err)
	}
	for _, p := range []struct {
		path string
		mode os.FileMode
	}{{lockedDir, 0o500}, {lockedFile, 0o400}} {
		fi, err := os.Stat(p.path)
		if err != nil {
			t.Errorf("%s outside the sandbox is gone: %v", p.path, err)
			continue
		}
		if fi.Mode().Perm() != p.mode {
			t.Errorf("%s outside the sandbox: mode %v, want it untouched (%v)", p.path, fi.Mode().Perm(), p.mode)
		}
	}
	if err := s.Remove(); err != nil {
		t.Errorf("second Remove = %v, want nil", err)
	}
}

func TestRemoveRefusesAnEmptyTop(t *testing.T) {
	for _, top := range []string{"", "relative/dir"} {
		s := &Sandbox{Top: top}
		if err := s.Remove(); err == nil {
			t.Errorf("Remove with Top %q = nil, want an error", top)
		}
	}
}

func TestRemoveErrorNamesThePath(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs POSIX permissions that bind the current user")
	}
	parent := t.TempDir()
	s, err := New(Options{Parent: parent})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(parent, 0o500); err != nil { // Top itself cannot be unlinked
		t.Fatal(err)
	}
	err = s.Remove()
	_ = os.Chmod(parent, 0o700)
	if err == nil || !strings.Contains(err.Error(), s.Top) {
		t.Errorf("Remove = %v, want an error naming %s", err, s.Top)
	}
	if err := s.Remove(); err != nil {
		t.Errorf("Remove after restoring the parent: %v", err)
	}
}
