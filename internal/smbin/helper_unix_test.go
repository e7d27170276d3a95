//go:build unix

package smbin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelperCacheMustBePrivate: a cache another user could write into
// (a directory open to the world, or a cached binary of another user's,
// as a root harness whose HOME is a user's would find) is neither built
// into nor run.
func TestHelperCacheMustBePrivate(t *testing.T) {
	t.Setenv(HelperEnv, "")
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	c := &helperCache{dir: filepath.Join(open, "sealmark"), goCmd: "/nonexistent/go", timeout: buildTimeout}
	if _, err := c.binary(); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a cache below a world-writable directory: %v, want a refusal", err)
	}

	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "sm-"+helperSum()[:32]+exeSuffix)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	c = &helperCache{dir: dir, goCmd: "/nonexistent/go", timeout: buildTimeout}
	if _, err := c.install(t.TempDir()); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
		t.Errorf("another user's cached binary: %v, want a refusal", err)
	}
}

func TestCheckPrivateAllowsTheUsersOwnTree(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir()) // below /tmp: sticky, the world's
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPrivate(dir); err != nil {
		t.Errorf("checkPrivate(%s) = %v", dir, err)
	}
}
