package smbin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/sealmark/sealmark/internal/capbuf"
	"github.com/sealmark/sealmark/internal/cleanup"
)

// build builds the helper into the cache directory dir as name and
// returns its path: the sources go into a temporary module in a directory
// beside it, go build writes the binary there, and a rename puts it in
// place, so a reader never sees half a file and several processes
// building at once each leave a whole one. A signal's cleanup stops the
// build and removes the directory. dir must be this user's alone
// (checkPrivate).
func (c *helperCache) build(dir, name string) (string, error) {
	c.mu.Lock()
	c.builds++
	c.mu.Unlock()
	goCmd := c.goCmd
	if goCmd == "" {
		found, err := exec.LookPath("go")
		if err != nil {
			return "", fmt.Errorf("no go command on PATH to build it with: %w", err)
		}
		goCmd = found
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("making its cache directory: %w", err)
	}
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("its cache directory: %w", err)
	}
	if err := checkPrivate(dir); err != nil {
		return "", fmt.Errorf("not building into its cache directory: %w", err)
	}
	p := filepath.Join(dir, name)
	sweepBuilds(dir, time.Now().Add(-time.Hour))
	work, err := os.MkdirTemp(dir, buildPrefix)
	if err != nil {
		return "", fmt.Errorf("making its build directory: %w", err)
	}
	defer os.RemoveAll(work)
	if err := writeModule(work); err != nil {
		return "", fmt.Errorf("writing its sources: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	undo := cleanup.Add(func() {
		cancel()
		_ = os.RemoveAll(work)
	})
	defer undo()

	out := filepath.Join(work, HelperName+exeSuffix)
	cmd := exec.CommandContext(ctx, goCmd, append(helperBuildArgs(), "-o", out, ".")...)
	cmd.Dir = work
	cmd.Env = buildEnv(os.Environ())
	log := capbuf.Buffer{Max: maxOutput}
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.WaitDelay = 5 * time.Second
	killGroup(cmd)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return "", fmt.Errorf("go build did not finish in %v: %s", c.timeout, log.Text())
		}
		return "", fmt.Errorf("go build (%s, %.1fs): %v: %s", goCmd, time.Since(start).Seconds(), err, log.Text())
	}
	// go build's mode follows the umask; the cache's binary is this
	// user's alone to change (checkPrivate).
	if err := os.Chmod(out, 0o755); err != nil {
		return "", fmt.Errorf("putting it into its cache: %w", err)
	}
	if err := os.Rename(out, p); err != nil {
		return "", fmt.Errorf("putting it into its cache: %w", err)
	}
	return p, nil
}

// buildPrefix starts the name of a build's directory in the cache.
const buildPrefix = ".build-"

// sweepBuilds removes build directories in dir last changed before
// cutoff: the leftovers of a harness killed mid-build.
func sweepBuilds(dir string, cutoff time.Time) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), buildPrefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// writeModule writes the helper's module into dir: go.mod, main.go,
// sum.go (the const sum the self-check prints) and smbin/.
func writeModule(dir string) error {
	if err := os.Mkdir(filepath.Join(dir, "smbin"), 0o700); err != nil {
		return err
	}
	files := map[string][]byte{
		"go.mod": []byte(helperGoMod),
		"sum.go": fmt.Appendf(nil, "package main\n\nconst sum = %q\n", helperSum()),
	}
	for _, f := range helperFiles {
		b, err := helperFS.ReadFile(f[0])
		if err != nil {
			return err
		}
		files[f[1]] = b
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), b, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// buildEnv is env for go build: the user's GOCACHE, GOROOT, GOPATH and
// the rest of the environment kept (the standard library's compiled
// packages are reused), but nothing that could make the build reach the
// network, another toolchain, a workspace, cgo or another platform.
func buildEnv(env []string) []string {
	set := []string{
		"GOTOOLCHAIN=local", // never download a toolchain
		"GOFLAGS=",
		"GOWORK=off",
		"GO111MODULE=on",
		"GOPROXY=off", // the module requires nothing; never ask a proxy
		"GOSUMDB=off",
		"CGO_ENABLED=0",
		"GOOS=" + runtime.GOOS,
		"GOARCH=" + runtime.GOARCH,
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GO") && !keptGoVars[name] {
			continue // GOAMD64, GOEXPERIMENT, GOFLAGS, ...: the defaults
		}
		out = append(out, kv)
	}
	return append(out, set...)
}

// keptGoVars are the GO* variables go build keeps: where the toolchain,
// its caches and its settings are.
var keptGoVars = map[string]bool{"GOROOT": true, "GOPATH": true, "GOCACHE": true, "GOMODCACHE": true,
	"GOTMPDIR": true, "GOENV": true, "GOTELEMETRY": true, "GOTELEMETRYDIR": true}

// selfCheck runs the helper at p as itself with -self-check and a fresh
// token, and wants helperSum and sm-echo's output for the token back.
//
// A start that fails with ETXTBSY is tried again: a child another
// goroutine of this process forked while the copy was open for writing
// holds that descriptor until it execs (golang/go#22315), which in a
// harness running several sandboxes, or a test binary, happens.
func selfCheck(p string) error {
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	for wait := 5 * time.Millisecond; ; wait *= 2 {
		err := checkOnce(ctx, p)
		if !errors.Is(err, syscall.ETXTBSY) || wait > time.Second {
			return err
		}

		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// checkTimeout bounds a self-check, its tries again included.
const checkTimeout = 10 * time.Second

// checkOnce is one try of selfCheck.
func checkOnce(ctx context.Context, p string) error {
	tok := randomToken()
	cmd := exec.CommandContext(ctx, p, "-self-check", tok)
	cmd.Env = []string{}
	cmd.Dir = filepath.Dir(p)
	stdout, stderr := capbuf.Buffer{Max: maxOutput}, capbuf.Buffer{Max: maxOutput}
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		// Slow, not wrong: a loaded machine is no reason to rebuild.
		return &checkError{fmt.Errorf("its self-check did not finish in %v: %v", checkTimeout, err), false}
	case err != nil && !errors.As(err, &ee):
		// It did not start: a bin where nothing may run (a noexec
		// mount), or a copy still held open, is not the binary's fault.
		suspect := !errors.Is(err, fs.ErrPermission) && !errors.Is(err, syscall.ETXTBSY)
		return &checkError{fmt.Errorf("it cannot run in %s: %w", filepath.Dir(p), err), suspect}
	case err != nil:
		return &checkError{fmt.Errorf("its self-check failed: %v: %s", err, stderr.Text()), true}
	}
	if want := helperSum() + ` ["` + tok + `"]` + "\n"; stdout.String() != want {
		return &checkError{fmt.Errorf("its self-check printed %q, want %q", stdout.Text(), want), true}
	}
	return nil
}

// checkError is a failed self-check; suspect means the binary itself is
// to blame (it ran and answered wrongly, or died), not where it is.
type checkError struct {
	err     error
	suspect bool
}

func (e *checkError) Error() string { return e.err.Error() }
func (e *checkError) Unwrap() error { return e.err }

// maxOutput bounds what is kept of a build's or a self-check's output.
const maxOutput = 4 << 10
