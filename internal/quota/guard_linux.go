package quota

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// GuardName is the name (os.Args[0]) under which a harness binary acts as
// a quota's guard: smbin.Dispatch runs GuardMain for it.
const GuardName = "sm-quota-guard"

// guardWait bounds release's wait for the guard to exit.
const guardWait = 2 * time.Second

// Guard starts exe, the running harness binary (its smbin.Dispatch runs
// GuardMain), as the guard of the quota Mount put on dir: a process that
// waits for the harness to be gone, however it went (a SIGKILL included),
// then unmounts dir, so no tmpfs of a dead harness stays mounted in the
// host's mount namespace, and removes the directory, now empty, unless
// the quota held a KeptFile: that is written back on disk, for the next
// run's sweep. It waits for end of
// file on a pipe whose write end only the harness holds (close-on-exec:
// no server inherits it), ignores the signals of a Ctrl-C to the process
// group, and stays in the harness's process group, so the harness's
// process observers never take it for an orphan of a server. release
// closes the pipe and waits, at most 2 s, for the guard to exit; call it
// once dir is unmounted (or kept on disk), and the guard only exits.
func Guard(dir, exe string) (release func(), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("quota: guard: %w", err)
	}
	cmd := exec.Command(exe, dir)
	cmd.Args[0] = GuardName
	cmd.Stdin = r
	cmd.Dir = "/"
	cmd.Env = []string{}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("quota: guard: %w", err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			w.Close()
			select {
			case <-done:
			case <-time.After(guardWait):
				_ = cmd.Process.Kill()
			}
		})
	}, nil
}

// GuardMain is the guard's life (see Guard): args is the directory its
// quota is mounted on. It returns the exit status.
func GuardMain(args []string) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	if len(args) != 1 || !filepath.IsAbs(args[0]) {
		fmt.Fprintln(os.Stderr, "usage: "+GuardName+" /absolute/dir")
		return 2
	}
	dir := args[0]
	_, _ = io.Copy(io.Discard, os.Stdin) // until the harness is gone
	if !Mounted(dir) {
		return 0 // the harness took it away, or kept it on disk
	}
	owner, _ := readBounded(filepath.Join(dir, KeptFile), 4<<10)
	if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
		return 1
	}
	if owner == nil {
		_ = os.Remove(dir) // nothing was ever written beneath the mount
		return 0
	}
	// The run's owner file stays, on disk now: the next run's sweep
	// kills what carries the run's marker (a daemon of a server that
	// ran without namespaces) and removes the directory.
	if err := os.WriteFile(filepath.Join(dir, KeptFile), owner, 0o600); err != nil {
		return 1
	}
	return 0
}

// KeptFile is the one file of a guarded directory that outlives its quota
// when the harness dies: the run's owner file (contain.OwnerFile), which
// the next run's sweep needs to find what the dead run left running.
const KeptFile = ".sealmark-owner"

// readBounded reads at most max bytes of file; nil when there is none.
func readBounded(file string, max int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}
