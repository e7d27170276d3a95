package smbin

import (
	"errors"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// needGo skips the test when no go command is on PATH to build the helper.
func needGo(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no go command to build the helper: %v", err)
	}
}

// installed installs the process's helper into a new bin directory with
// sm-* linked to it, as a sandbox does, and returns the directory.
func installed(t testing.TB) string {
	t.Helper()
	needGo(t)
	t.Setenv(HelperEnv, "")
	dir := t.TempDir()
	p, err := InstallHelper(dir)
	if err != nil {
		t.Fatalf("InstallHelper: %v", err)
	}
	for _, n := range Names {
		if err := os.Symlink(filepath.Base(p), filepath.Join(dir, n+exeSuffix)); err != nil {
			t.Skipf("cannot make a symlink here: %v", err)
		}
	}
	return dir
}

// TestHelperSourcesAreStdlibOnly: what the helper is built from imports
// the standard library, and main.go.txt the programs beside it; nothing
// else would build offline in a module with no requirements.
func TestHelperSourcesAreStdlibOnly(t *testing.T) {
	for _, f := range helperFiles {
		b, err := helperFS.ReadFile(f[0])
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(token.NewFileSet(), f[0], b, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(p, "/")
			if strings.Contains(first, ".") || (p != "smhelper/smbin" && first == "smhelper") {
				t.Errorf("%s imports %s, not the standard library", f[0], p)
			}
		}
	}
	// Every non-test file of the package's program code is embedded.
	for _, name := range []string{"program.go", "programs.go", "execlog.go", "nofollow_unix.go", "nofollow_other.go"} {
		if _, err := helperFS.ReadFile(name); err != nil {
			t.Errorf("%s is not embedded: %v", name, err)
		}
	}
}

// testCache is a helper cache of its own in a new directory.
func testCache(t *testing.T) *helperCache {
	t.Helper()
	needGo(t)
	t.Setenv(HelperEnv, "")
	return &helperCache{dir: t.TempDir(), timeout: buildTimeout}
}

func TestHelperBuildsOnceAndRuns(t *testing.T) {
	c := testCache(t)
	start := time.Now()
	p, err := c.install(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built and installed in %v", time.Since(start))
	if _, err := c.install(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if c.buildCount() != 1 {
		t.Errorf("%d builds for two installs, want 1", c.buildCount())
	}
	if err := selfCheck(p); err != nil {
		t.Error(err)
	}
	if out, err := exec.Command(p).CombinedOutput(); !strings.Contains(string(out), "sm-echo") {
		t.Errorf("the helper as itself = %q, %v; want its usage naming the programs", out, err)
	}
	entries, _ := os.ReadDir(c.dir)
	if len(entries) != 1 || entries[0].Name() != "sm-"+helperSum()[:32]+exeSuffix {
		t.Errorf("the cache holds %v, want the one binary", entries)
	}
}

// TestHelperConcurrentBuilds: processes building into one cache at once
// (a cache each here, over one directory) each get a whole binary, and one
// is left.
func TestHelperConcurrentBuilds(t *testing.T) {
	dir := testCache(t).dir
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() {
			c := &helperCache{dir: dir, timeout: buildTimeout}
			_, errs[i] = c.install(t.TempDir())
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("build %d: %v", i, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the cache holds %v, want the one binary", entries)
	}
	if err := selfCheck(filepath.Join(dir, entries[0].Name())); err != nil {
		t.Error(err)
	}
}

// TestHelperDamagedCacheIsRebuilt: a cached binary cut short, or one that
// runs but is not the build it should be, is not used: the first install
// finds it wrong and builds it again.
func TestHelperDamagedCacheIsRebuilt(t *testing.T) {
	cases := map[string]func(t *testing.T, p string){
		"truncated": func(t *testing.T, p string) {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, fi.Size()/2); err != nil {
				t.Fatal(err)
			}
		},
		"another program": func(t *testing.T, p string) {
			if runtime.GOOS == "windows" {
				t.Skip("a script cannot stand in for an .exe")
			}
			if err := os.WriteFile(p, []byte("#!/bin/sh\necho '[\"hello\"]'\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			first := testCache(t)
			if _, err := first.binary(); err != nil {
				t.Fatal(err)
			}
			damage(t, first.path)
			c := &helperCache{dir: first.dir, timeout: buildTimeout}
			bin := t.TempDir()
			p, err := c.install(bin)
			if err != nil {
				t.Fatal(err)
			}
			if c.buildCount() != 1 {
				t.Errorf("%d builds after a damaged cache, want 1", c.buildCount())
			}
			if err := selfCheck(first.path); err != nil {
				t.Errorf("the cache after the rebuild: %v", err)
			}
			if err := selfCheck(p); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestHelperWithoutGo: no go command and nothing cached is an error that
// says so, and leaves nothing behind.
func TestHelperWithoutGo(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(HelperEnv, "")
	c := &helperCache{dir: filepath.Join(t.TempDir(), "cache"), timeout: buildTimeout}
	bin := t.TempDir()
	_, err := c.install(bin)
	if err == nil || !strings.Contains(err.Error(), "no go command on PATH") {
		t.Errorf("install without go = %v, want an error saying so", err)
	}
	if entries, _ := os.ReadDir(bin); len(entries) != 0 {
		t.Errorf("bin holds %v after a failed install", entries)
	}
}

func TestHelperEnv(t *testing.T) {
	for v, want := range map[string]string{"off": HelperEnv + "=off", "maybe": `"maybe" is neither on nor off`} {
		t.Setenv(HelperEnv, v)
		if _, err := InstallHelper(t.TempDir()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=%s: %v, want an error with %q", HelperEnv, v, err, want)
		}
	}
}

// TestHelperBuildErrors: a build that fails names the go command and
// carries its output, bounded; one past its time says so.
func TestHelperBuildErrors(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("stands a shell script in for go")
	}
	fake := filepath.Join(t.TempDir(), "go")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'main.go:1: broken' >&2\nhead -c 100000 /dev/zero | tr '\\0' x >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := &helperCache{dir: t.TempDir(), goCmd: fake, timeout: time.Minute}
	_, err := c.binary()
	if err == nil || !strings.Contains(err.Error(), "main.go:1: broken") || !strings.Contains(err.Error(), "more bytes") || len(err.Error()) > maxOutput+300 {
		t.Errorf("a failing build = %.300q (%d bytes), want its bounded output", err, len(errString(err)))
	}
	if entries, _ := os.ReadDir(c.dir); len(entries) != 0 {
		t.Errorf("a failed build left %v", entries)
	}

	slow := filepath.Join(t.TempDir(), "go")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nsleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c = &helperCache{dir: t.TempDir(), goCmd: slow, timeout: 200 * time.Millisecond}
	start := time.Now()
	if _, err := c.binary(); err == nil || !strings.Contains(err.Error(), "did not finish in 200ms") {
		t.Errorf("a build past its time = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a build past its time took %v to stop", d)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestSelfCheckBlamesTheFileOnlyWhenItRan: a file that cannot be run
// there is not the cache's fault (no rebuild); one that runs and answers
// wrongly is.
func TestSelfCheckBlamesTheFileOnlyWhenItRan(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes")
	}
	dir := t.TempDir()
	noExec := filepath.Join(dir, "noexec")
	if err := os.WriteFile(noExec, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var ce *checkError
	if err := selfCheck(noExec); !errors.As(err, &ce) || ce.suspect {
		t.Errorf("selfCheck of a file that may not run = %v, want a check error that is not suspect", err)
	}
	wrong := filepath.Join(dir, "wrong")
	if err := os.WriteFile(wrong, []byte("#!/bin/sh\nexit 0\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := selfCheck(wrong); !errors.As(err, &ce) || !ce.suspect {
		t.Errorf("selfCheck of a wrong program = %v, want a suspect check error", err)
	}
}

func TestBuildEnv(t *testing.T) {
	got := buildEnv([]string{"HOME=/h", "GOFLAGS=-tags=x", "GOCACHE=/c", "GOAMD64=v4", "GOOS=plan9", "GOPROXY=https://proxy.example", "PATH=/p"})
	want := map[string]bool{"HOME=/h": true, "GOCACHE=/c": true, "PATH=/p": true, "GOFLAGS=": true, "GOPROXY=off": true,
		"GOTOOLCHAIN=local": true, "GOWORK=off": true, "CGO_ENABLED=0": true, "GOOS=" + runtime.GOOS: true}
	seen := map[string]string{}
	for _, kv := range got {
		name, _, _ := strings.Cut(kv, "=")
		if prev, dup := seen[name]; dup {
			t.Errorf("%s twice: %s and %s", name, prev, kv)
		}
		seen[name] = kv
		delete(want, kv)
	}
	if len(want) > 0 {
		t.Errorf("buildEnv = %q, missing %v", got, want)
	}
	if _, ok := seen["GOAMD64"]; ok {
		t.Errorf("buildEnv kept GOAMD64: %q", got)
	}
}

func TestSweepBuilds(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{buildPrefix + "old", buildPrefix + "new", "sm-keep"} {
		if err := os.Mkdir(filepath.Join(dir, n), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	for _, n := range []string{buildPrefix + "old", "sm-keep"} {
		if err := os.Chtimes(filepath.Join(dir, n), old, old); err != nil {
			t.Fatal(err)
		}
	}
	sweepBuilds(dir, time.Now().Add(-time.Hour))
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != buildPrefix+"new sm-keep" {
		t.Errorf("after the sweep: %v", names)
	}
}

// TestHelperStatus: the status says what a run would do, building
// nothing: build with go, use the cached one, or (an error) link to the
// harness, for want of go or by HelperEnv.
func TestHelperStatus(t *testing.T) {
	c := testCache(t)
	s, err := c.status()
	if err != nil || !strings.Contains(s, "not built yet: the first run builds it into "+c.dir) {
		t.Errorf("empty cache: %q, %v; want it not built yet", s, err)
	}
	if c.buildCount() != 0 {
		t.Fatalf("status built the helper")
	}
	if _, err := c.install(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	s, err = c.status()
	if err != nil || !strings.Contains(s, "the helper is built: ") || !strings.Contains(s, "sm-"+helperSum()[:32]) {
		t.Errorf("after a build: %q, %v; want the cached path", s, err)
	}

	t.Setenv("PATH", t.TempDir())
	empty := &helperCache{dir: filepath.Join(t.TempDir(), "cache"), timeout: buildTimeout}
	if s, err := empty.status(); err == nil || !strings.Contains(err.Error(), "no go command on PATH") {
		t.Errorf("without go: %q, %v; want an error saying so", s, err)
	}
	t.Setenv(HelperEnv, "off")
	if s, err := c.status(); err == nil || !strings.Contains(err.Error(), HelperEnv+"=off") {
		t.Errorf("%s=off: %q, %v; want an error naming it", HelperEnv, s, err)
	}
}
