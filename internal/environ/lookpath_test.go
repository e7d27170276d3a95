package environ

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestLookPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX execute bits")
	}
	a, b, cwd := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(p string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(a, "tool"), 0o700)
	write(filepath.Join(b, "tool"), 0o700)   // shadowed by a
	write(filepath.Join(a, "plain"), 0o600)  // not executable
	write(filepath.Join(b, "plain"), 0o755)  // found after the non-executable one
	write(filepath.Join(cwd, "here"), 0o700) // only in the current directory
	write(filepath.Join(cwd, "node_modules/.bin/srv"), 0o700)
	if err := os.Mkdir(filepath.Join(a, "dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(cwd) // a bare name must not resolve here even so

	path := strings.Join([]string{"", ".", "rel", a, b}, string(filepath.ListSeparator))
	tests := []struct {
		name     string
		want     string
		wantErrs []string
	}{
		{"tool", filepath.Join(a, "tool"), nil},
		{"plain", filepath.Join(b, "plain"), nil},
		{filepath.Join(b, "tool"), filepath.Join(b, "tool"), nil},
		{"./here", filepath.Join(cwd, "here"), nil},
		{"node_modules/.bin/srv", filepath.Join(cwd, "node_modules/.bin/srv"), nil},
		{"../" + filepath.Base(cwd) + "/here", filepath.Join(cwd, "here"), nil},
		{"here", "", []string{`command "here"`, "not found on the sandbox's PATH (see `sealmark doctor`)"}},
		{"missing", "", []string{`command "missing"`, "not found on the sandbox's PATH"}},
		{"dir", "", []string{`command "dir"`}},
		{filepath.Join(a, "plain"), "", []string{"not executable"}},
		{filepath.Join(a, "dir"), "", []string{"a directory"}},
		{"./missing", "", []string{`command "./missing"`, filepath.Join(cwd, "missing")}},
		{"", "", []string{`command ""`}},
	}
	for _, tt := range tests {
		got, err := LookPath(tt.name, path, cwd)
		if tt.wantErrs == nil {
			if err != nil || got != tt.want {
				t.Errorf("LookPath(%q) = %q, %v; want %q, nil", tt.name, got, err, tt.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("LookPath(%q) = %q, nil; want an error", tt.name, got)
			continue
		}
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("LookPath(%q) error %q does not wrap ErrNotFound", tt.name, err)
		}
		if strings.Contains(err.Error(), path) {
			t.Errorf("LookPath(%q) error %q quotes the PATH searched", tt.name, err)
		}
		for _, w := range tt.wantErrs {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("LookPath(%q) error %q, want it to contain %q", tt.name, err, w)
			}
		}
	}
}

func TestLookPathRelativeWithoutCwdUsesTheWorkingDirectory(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX execute bits")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "srv"), []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	wd, _ := os.Getwd()
	got, err := LookPath("./srv", "", "")
	if err != nil || got != filepath.Join(wd, "srv") {
		t.Errorf("LookPath(./srv) = %q, %v; want %q", got, err, filepath.Join(wd, "srv"))
	}
}
