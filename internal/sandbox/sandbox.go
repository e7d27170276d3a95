package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/quota"
	"github.com/sealmark/sealmark/internal/smbin"
)

// Options configures [New]. The zero value makes a sandbox in the OS temp
// directory whose bin programs link to the sm-* helper copied into bin, or
// else to the running executable.
type Options struct {
	// Parent is the directory the sandbox is made in (sandbox.dir,
	// --sandbox-dir). It must exist. "" means os.TempDir(). Links in it are
	// resolved, so the sandbox's paths are the ones a server sees when it
	// resolves its own root.
	Parent string
	// Harness is the absolute path of the binary that bin/sm-* link to
	// when the sm-* helper cannot be had (see smbin.InstallHelper): the
	// sealmark binary, or a test binary whose TestMain calls
	// smbin.Dispatch. "" means os.Executable().
	Harness string
	// GitRepo also makes root/repo, the git pack's repository (see
	// [Sandbox.Repo]), and the rest of its layout ([GitLayout]). Without
	// git they are left out and Notes says why.
	GitRepo bool
	// Keep leaves the sandbox in place when the process is interrupted
	// after New returned (--keep-sandbox); without it a signal's cleanup
	// ([cleanup.Run]) removes it. A sandbox still being made is removed
	// on a signal either way.
	Keep bool
	// MaxBytes, when positive, is the sandbox's size limit, enforced by a
	// filesystem of that size mounted on Top (see [quota]) where this
	// machine lets the harness mount one (a root harness on Linux): a
	// write past it fails with ENOSPC in that write. Elsewhere Quota says
	// why not, and the limit is only what the size observer samples.
	MaxBytes int64
}

// CanaryFile is a file the server must never read.
type CanaryFile struct {
	Name   string // path below Top, slash-separated, e.g. "canary/secret.txt"
	Path   string // absolute path
	Secret string // the file's whole content: a random canary string
}

// Sandbox is one disposable sandbox. All paths are absolute.
type Sandbox struct {
	Top      string // <parent>/sealmark-<16 hex>, mode 0700
	Root     string // Top/root: the server's working directory and allowed root ({sandbox})
	RootEvil string // Top/root-evil: a sibling whose name starts with root's name
	Canary   string // Top/canary: secrets the server is never told about
	Home     string // Top/home: the server's HOME ({sandbox_home})
	Tmp      string // Top/tmp: the server's TMPDIR
	Bin      string // Top/bin: sm-canary, sm-echo, sm-sleep, sm-spew, links to bin/sealmark-sm (or the harness)

	OKToken string       // content of root/ok.txt (random); reading it is allowed
	Files   []CanaryFile // canary/secret.txt, canary/id_rsa, root-evil/evil.txt

	LinkDir  string // root/link-dir -> ../canary; "" when the platform refused the link
	LinkFile string // root/link-file -> ../canary/secret.txt; "" when refused

	CanaryRepo       string    // canary/repo: a git repository with one commit; "" without git
	CanaryRepoSecret string    // content of the repository's one file, also in its commit message
	Repo             string    // root/repo with Options.GitRepo or after StageGit: one commit, a staged change, an untracked file and an untracked link to CanaryRepo; "" otherwise
	Git              GitLayout // with Options.GitRepo or after StageGit: the git pack's other repositories

	Notes []string // what could not be made, and why

	// Quota is the size of the filesystem of its own that bounds
	// everything under Top (Options.MaxBytes), 0 when there is none;
	// QuotaWhy then says why not ("" when none was asked for).
	Quota    int64
	QuotaWhy string

	gitTried bool // the git pack's layout was made or tried (New with GitRepo, or StageGit)
	helper   bool // bin/sm-* link to bin's copy of the sm-* helper, not to the harness

	ctx   context.Context // ends when a signal's cleanup stops New: git commands in flight are killed
	undo  func()          // removes the sandbox's signal-path removal from cleanup
	guard func()          // lets the quota's guard go (guardQuota) once the quota is unmounted
}

// New makes a fresh sandbox under opts.Parent. On error it removes what it
// made.
func New(opts Options) (*Sandbox, error) {
	parent := opts.Parent
	if parent == "" {
		parent = os.TempDir()
	}
	parent, err := filepath.Abs(parent)
	if err == nil {
		parent, err = filepath.EvalSymlinks(parent)
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox: parent directory: %w", err)
	}
	harness, err := harnessPath(opts.Harness)
	if err != nil {
		return nil, err
	}
	top, err := makeTop(parent)
	if err != nil {
		return nil, err
	}
	var quotaWhy string
	guard := func() {}
	if opts.MaxBytes > 0 {
		if err := quota.Mount(top, opts.MaxBytes); err != nil {
			quotaWhy = strings.TrimPrefix(err.Error(), "quota: ")
		} else {
			guard = guardQuota(top)
		}
	}
	// From the moment top exists a signal's cleanup removes it: it stops
	// the build first (a git command in flight is killed, git would write
	// on into the tree otherwise) and waits for it, bounded.
	ctx, cancel := context.WithCancel(context.Background())
	built := make(chan struct{})
	undo := cleanup.Add(func() {
		cancel()
		select {
		case <-built:
		case <-time.After(buildStopWait):
		}
		_ = removeTree(top)
		guard()
	})
	s, err := buildLayout(ctx, top, harness, opts.GitRepo)
	close(built)
	if err != nil {
		undo()
		if errors.Is(err, syscall.ENOSPC) && quota.Mounted(top) {
			err = fmt.Errorf("%w (the sandbox's size limit, %s, is too small for its own files)", err, sizeText(opts.MaxBytes))
		}
		if rerr := removeTree(top); rerr != nil {
			err = errors.Join(err, rerr)
		}
		guard()
		return nil, err
	}
	s.guard = guard
	if quota.Mounted(top) {
		s.Quota = opts.MaxBytes
	} else {
		s.QuotaWhy = quotaWhy
	}
	if opts.Keep {
		undo()
		if s.Quota > 0 {
			// Interrupted, a kept sandbox still leaves its quota for disk.
			s.undo = cleanup.Add(func() { _ = s.keepOnDisk() })
		}
	} else {
		s.undo = undo
	}
	return s, nil
}

// sizeText is n bytes in MiB, or KiB when that is not a whole number.
func sizeText(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// Kept readies a kept sandbox for the user (--keep-sandbox): its files
// move off the quota's memory-backed filesystem onto the parent
// directory's, at the same path, so they outlive the run. Without a quota
// there is nothing to do. The error names what could not be copied.
func (s *Sandbox) Kept() error {
	err := s.keepOnDisk()
	if s.undo != nil {
		s.undo()
		s.undo = nil
	}
	return err
}

// buildStopWait bounds how long a signal's cleanup waits for a sandbox
// being made to stop before it removes the tree.
const buildStopWait = 5 * time.Second

// buildLayout is build; tests replace it to make New fail half-way.
var buildLayout = build

// makeTop makes <parent>/sealmark-<16 hex> with mode 0700.
func makeTop(parent string) (string, error) {
	var err error
	for range 5 {
		top := filepath.Join(parent, "sealmark-"+randomHex(8))
		if err = os.Mkdir(top, 0o700); err == nil {
			if err = os.Chmod(top, 0o700); err != nil { // whatever the umask
				_ = os.Remove(top)
				return "", fmt.Errorf("sandbox: %w", err)
			}
			return top, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	return "", fmt.Errorf("sandbox: %w", err)
}

// harnessPath returns the binary bin/sm-* link to.
func harnessPath(p string) (string, error) {
	if p == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("sandbox: harness binary: %w", err)
		}
		p = exe
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("sandbox: harness binary %q is not an absolute path", p)
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("sandbox: harness binary %s is not a regular file", p)
	}
	return p, nil
}

// Secrets returns every canary value in the sandbox: each canary file's
// secret and the canary repository's.
func (s *Sandbox) Secrets() []string {
	out := make([]string, 0, len(s.Files)+1)
	for _, f := range s.Files {
		out = append(out, f.Secret)
	}
	if s.CanaryRepoSecret != "" {
		out = append(out, s.CanaryRepoSecret)
	}
	if s.Git.EvilRepoSecret != "" {
		out = append(out, s.Git.EvilRepoSecret)
	}
	return out
}

// Remove deletes the sandbox. It first gives the owner rwx on every
// directory below Top (a server may have made some read-only), never
// following a link out of the sandbox. Stop the sandbox's processes first.
// The error names the path left behind.
func (s *Sandbox) Remove() error {
	if s.Top == "" || !filepath.IsAbs(s.Top) {
		return fmt.Errorf("sandbox: remove: %q is not an absolute path", s.Top)
	}
	err := removeTree(s.Top)
	if s.undo != nil {
		s.undo()
	}
	if err == nil && s.guard != nil {
		s.guard()
	}
	return err
}

// guardQuota starts the guard that unmounts the quota on top if the
// harness dies without doing so (quota.Guard), where this program can act
// as one (smbin.Dispatched), and returns its release. A guard that cannot
// start leaves that to the next run's sweep.
func guardQuota(top string) func() {
	if !smbin.Dispatched() {
		return func() {}
	}
	exe, err := os.Executable()
	if err != nil {
		return func() {}
	}
	release, err := quota.Guard(top, exe)
	if err != nil {
		return func() {}
	}
	return release
}

// removeTree makes every directory below top writable, then removes top;
// a quota filesystem on top goes with everything in it.
func removeTree(top string) error {
	if err := quota.Unmount(top); err != nil {
		return fmt.Errorf("sandbox: could not remove %s: %w", top, err)
	}
	unlock(top)
	if err := os.RemoveAll(top); err != nil {
		return fmt.Errorf("sandbox: could not remove %s: %w", top, err)
	}
	return nil
}

// unlock gives the owner rwx on dir and every directory below it, without
// following links. Errors are ignored: RemoveAll reports what still fails.
func unlock(dir string) {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return
	}
	if fi.Mode().Perm()&0o700 != 0o700 {
		_ = os.Chmod(dir, fi.Mode().Perm()|0o700)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir(): // a link to a directory is not IsDir
			unlock(p)
		case runtime.GOOS == "windows" && e.Type().IsRegular():
			// Windows refuses to delete a read-only file. (On POSIX a
			// file's mode does not matter, and a chmod could reach a file
			// outside the sandbox through a hard link.)
			_ = os.Chmod(p, 0o600)
		}
	}
}
