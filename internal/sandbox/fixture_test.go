package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFixture(t *testing.T) {
	tests := []struct {
		kind     string
		existing bool // dir exists (empty) before the call
		needGit  bool
	}{
		{"fs", false, false},
		{"fs", true, false},
		{"git", false, true},
		{"git", true, true},
	}
	for _, tt := range tests {
		name := tt.kind + "/new-dir"
		if tt.existing {
			name = tt.kind + "/empty-dir"
		}
		t.Run(name, func(t *testing.T) {
			if tt.needGit {
				needGit(t)
			}
			dir := filepath.Join(t.TempDir(), "fixtures", "one")
			if tt.existing {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			s, err := WriteFixture(dir, tt.kind)
			if err != nil {
				t.Fatalf("WriteFixture: %v", err)
			}
			if s.Top != dir || s.Root != filepath.Join(dir, "root") {
				t.Errorf("Top, Root = %s, %s; want %s and its root", s.Top, s.Root, dir)
			}
			if got := readFile(t, filepath.Join(dir, "root", "ok.txt")); got != s.OKToken {
				t.Errorf("root/ok.txt = %q, want %q", got, s.OKToken)
			}
			if (s.Repo != "") != (tt.kind == "git") {
				t.Errorf("Repo = %q for kind %s", s.Repo, tt.kind)
			}

			guide := readFile(t, filepath.Join(dir, FixtureGuide))
			paths := []string{"root/", "root/ok.txt", "root/link-dir", "root/link-file", "root-evil/", "root-evil/evil.txt",
				"canary/", "canary/secret.txt", "canary/id_rsa", "canary/repo/", "home/", "tmp/", "bin/",
				"bin/sm-canary", "bin/sm-echo", "bin/sm-sleep N", "bin/sm-spew N", "bin/.exec.log", FixtureGuide}
			if tt.kind == "git" {
				paths = append(paths, "root/repo/", "root/repo/canary-link")
			}
			lines := strings.Split(guide, "\n")
			for _, p := range paths {
				if !hasLineFor(lines, p) {
					t.Errorf("%s has no line for %s:\n%s", FixtureGuide, p, guide)
				}
			}
			if tt.kind == "fs" && strings.Contains(guide, "root/repo") {
				t.Errorf("fs fixture guide mentions root/repo:\n%s", guide)
			}
			for _, v := range append(s.Secrets(), s.OKToken, "{sandbox}", "{sandbox_home}", "SEALMARK-CANARY-EXECUTED", "JSON") {
				if !strings.Contains(guide, v) {
					t.Errorf("%s does not mention %q:\n%s", FixtureGuide, v, guide)
				}
			}
		})
	}
}

// hasLineFor reports whether a line starts with path followed by spaces.
func hasLineFor(lines []string, path string) bool {
	for _, l := range lines {
		if rest, ok := strings.CutPrefix(l, path); ok && strings.HasPrefix(rest, "  ") {
			return true
		}
	}
	return false
}

func TestWriteFixtureRefuses(t *testing.T) {
	base := t.TempDir()
	full := filepath.Join(base, "full")
	if err := os.Mkdir(full, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "mine.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, kind, want string
	}{
		{"unknown kind", filepath.Join(base, "new"), "sqlite", `fixture kind "sqlite"`},
		{"directory not empty", full, "fs", "not empty"},
		{"a file", file, "fs", "not a directory"},
	}
	for _, tt := range tests {
		if _, err := WriteFixture(tt.dir, tt.kind); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: WriteFixture = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an unknown kind made the directory (%v)", err)
	}
	entries, _ := os.ReadDir(full)
	if len(entries) != 1 || readFile(t, filepath.Join(full, "mine.txt")) != "mine" {
		t.Errorf("a refused non-empty directory was changed: %d entries", len(entries))
	}
}

func TestWriteFixtureGitWithoutGitLeavesNothing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	base := t.TempDir()
	empty := filepath.Join(base, "empty")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(base, "new"), empty} {
		if _, err := WriteFixture(dir, "git"); err == nil || !strings.Contains(err.Error(), "git not found") {
			t.Errorf("WriteFixture(%s, git) without git = %v, want an error saying git was not found", dir, err)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the directory WriteFixture made is still there (%v)", err)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("the empty directory now holds %d entries, want it emptied again", len(entries))
	}
}
