package smbin

import (
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"
)

// HelperName is the helper binary's name in a sandbox's bin directory
// (with ".exe" on Windows); bin/sm-* are links to it. It matches no sm-*
// name, so started as itself it is none of the programs.
const HelperName = "sealmark-sm"

// HelperEnv turns the helper off: SEALMARK_SM_HELPER=off makes
// [InstallHelper] fail at once, so a sandbox links bin/sm-* to the harness
// binary as before the helper existed (and notes why). "" and "on" are
// the default; any other value is refused the same way, naming itself.
const HelperEnv = "SEALMARK_SM_HELPER"

// The helper's sources: the program files, which import nothing but the
// standard library (TestHelperSourcesAreStdlibOnly), and its main.
//
//go:embed program.go programs.go execlog.go nofollow_unix.go nofollow_other.go helper/main.go.txt
var helperFS embed.FS

// helperFiles maps each embedded file to its path in the temporary module.
var helperFiles = [][2]string{
	{"helper/main.go.txt", "main.go"},
	{"program.go", "smbin/program.go"},
	{"programs.go", "smbin/programs.go"},
	{"execlog.go", "smbin/execlog.go"},
	{"nofollow_unix.go", "smbin/nofollow_unix.go"},
	{"nofollow_other.go", "smbin/nofollow_other.go"},
}

// helperGoMod is the temporary module's go.mod: no requirement, and a
// language version old enough for any toolchain a user is likely to have.
// The GODEBUG defaults it implies differ from the harness's (go 1.26) only
// in settings the programs do not touch: timer channels, GOMAXPROCS from
// cgroup limits, memory mapping names, TLS, X.509 and Windows links.
const helperGoMod = "module smhelper\n\ngo 1.22\n"

// helperBuildArgs are go build's arguments before "-o OUT .": -trimpath
// when the harness binary was built with it, so the user's Go build cache,
// which built the harness when it was built here (go install, go test, the
// Action's build from source), already holds the standard library's
// packages as the helper needs them: the flag is part of every package's
// cache key, and a build that differs in it compiles the standard library
// anew (0.4 s with the same flag against 18 to 35 s without, at a load
// average near 10 on two cores).
var helperBuildArgs = sync.OnceValue(func() []string {
	args := []string{"build", "-buildvcs=false", "-ldflags=-s -w"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-trimpath" && s.Value == "true" {
				args = append(args, "-trimpath")
			}
		}
	}
	return slices.Clip(args) // appending to it copies
})

// exeSuffix is what an executable's name ends in here.
var exeSuffix = func() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}()

// helperSum is the hex SHA-256 of everything that decides the helper
// binary: the embedded sources, go.mod, go build's arguments and the
// platform. The cache names the binary by it and the binary prints it
// (-self-check).
var helperSum = sync.OnceValue(func() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s/%s\n%s\n%q\n", runtime.GOOS, runtime.GOARCH, helperGoMod, helperBuildArgs())
	for _, f := range helperFiles {
		b, err := helperFS.ReadFile(f[0])
		if err != nil {
			panic(err) // embedded: cannot happen
		}
		fmt.Fprintf(h, "%s %d\n", f[1], len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
})

// InstallHelper puts the sm-* helper into dir (a sandbox's bin directory)
// as [HelperName] and checks that the copy runs there; the caller then
// links each of [Names] to it. The first call in a process finds the
// helper in the user's cache (os.UserCacheDir()/sealmark/sm-<hash>, the
// hash of its sources), or builds it there with the Go toolchain on PATH:
// offline, within two minutes: about a second with a warm Go build cache,
// half a minute or more with an empty one.
// Later calls copy it and run it once (-self-check), a few milliseconds.
// A copy that runs but does not answer as it should makes the process
// rebuild the cached binary once. A cache directory or binary that
// another user could write is not used.
//
// On error nothing is left in dir and the error says why the helper cannot
// be had (no go command, a build error, a sandbox where nothing may run,
// [HelperEnv]); a sandbox then links bin/sm-* to the harness binary.
func InstallHelper(dir string) (string, error) { return defaultHelper.install(dir) }

// defaultHelper is the process's helper cache.
var defaultHelper = &helperCache{timeout: buildTimeout}

// buildTimeout bounds a build of the helper.
const buildTimeout = 2 * time.Minute

// helperCache finds or builds the helper once per process. Tests make
// their own with another directory or go command.
type helperCache struct {
	dir     string        // the cache directory; "" is os.UserCacheDir()/sealmark
	goCmd   string        // the go command; "" looks it up on PATH when a build is due
	timeout time.Duration // bounds a build

	once sync.Once // finds or builds path
	path string
	err  error

	again  sync.Once // rebuilds it once, when a copy answered wrongly
	agErr  error
	builds int // builds run, for tests
	mu     sync.Mutex
}

// install is InstallHelper.
func (c *helperCache) install(dir string) (string, error) {
	if err := helperWanted(); err != nil {
		return "", err
	}
	src, err := c.binary()
	if err != nil {
		return "", err
	}
	at := filepath.Join(dir, HelperName+exeSuffix)
	err = placeHelper(src, at)
	var ce *checkError
	if errors.As(err, &ce) && ce.suspect {
		// It ran but answered wrongly, or died: the cached binary is
		// damaged. Build it again, once a process.
		if rerr := c.rebuild(src); rerr != nil {
			return "", fmt.Errorf("%w; building it again: %w", err, rerr)
		}
		err = placeHelper(src, at)
	}
	if err != nil {
		return "", err
	}
	return at, nil
}

// helperWanted reads HelperEnv.
func helperWanted() error {
	switch v := os.Getenv(HelperEnv); v {
	case "", "on":
		return nil
	case "off":
		return errors.New(HelperEnv + "=off turns it off")
	default:
		return fmt.Errorf("%s=%q is neither on nor off", HelperEnv, v)
	}
}

// binary returns the cached helper's path, building it on the process's
// first need when the cache has none.
func (c *helperCache) binary() (string, error) {
	c.once.Do(func() { c.path, c.err = c.find() })
	return c.path, c.err
}

// find looks for the helper in the cache, and builds it there when it is
// not.
func (c *helperCache) find() (string, error) {
	dir, name, p, err := c.locate()
	if err != nil || p != "" {
		return p, err
	}
	return c.build(dir, name)
}

// locate is the cache directory, the helper's name in it, and its path
// when the cache holds it ("" when it does not).
func (c *helperCache) locate() (dir, name, path string, err error) {
	dir = c.dir
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", "", "", fmt.Errorf("no cache directory to build it into: %w", err)
		}
		dir = filepath.Join(base, "sealmark")
	}
	name = "sm-" + helperSum()[:32] + exeSuffix
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		p := filepath.Join(real, name)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
			if err := checkPrivate(p); err != nil {
				return dir, name, "", fmt.Errorf("not running the cached one: %w", err)
			}
			return dir, name, p, nil
		}
	}
	return dir, name, "", nil
}

// HelperStatus says, without building or running anything, how a run's
// sandbox will get its sm-* programs: from the cached helper, from a
// helper the first run builds with the go command it names, or (err
// non-nil, saying why) as links to the harness binary.
func HelperStatus() (string, error) { return defaultHelper.status() }

// status is HelperStatus.
func (c *helperCache) status() (string, error) {
	if err := helperWanted(); err != nil {
		return "", err
	}
	dir, _, p, err := c.locate()
	switch {
	case err != nil:
		return "", err
	case p != "":
		return "the helper is built: " + p, nil
	}
	goCmd := c.goCmd
	if goCmd == "" {
		if goCmd, err = exec.LookPath("go"); err != nil {
			return "", fmt.Errorf("no go command on PATH to build it with, and none built in %s", dir)
		}
	}
	return fmt.Sprintf("not built yet: the first run builds it into %s with %s (about a second; half a minute or more with an empty Go build cache)", dir, goCmd), nil
}

// rebuild removes the damaged cached binary p and builds it again, the
// first time it is called in a process; later calls return the first's
// result.
func (c *helperCache) rebuild(p string) error {
	c.again.Do(func() {
		_ = os.Remove(p)
		_, c.agErr = c.build(filepath.Dir(p), filepath.Base(p))
	})
	return c.agErr
}

// buildCount reports how many times c built the helper.
func (c *helperCache) buildCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.builds
}

// placeHelper copies the helper src to the new file at (mode 0700) and
// runs the copy's self-check. On error at is gone.
func placeHelper(src, at string) error {
	err := copyExecutable(src, at)
	if err != nil {
		err = fmt.Errorf("copying it into %s: %w", filepath.Dir(at), err)
	} else {
		err = selfCheck(at)
	}
	if err != nil {
		_ = os.Remove(at)
	}
	return err
}

// copyExecutable copies the regular file src to the new file dst, mode 0700.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// randomToken is 16 random hex digits.
func randomToken() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
