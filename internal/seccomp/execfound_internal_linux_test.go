package seccomp

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestExecFound tells, in this process's own view, a program there to
// run from one that is missing (each try of a PATH search that the
// kernel answers ENOENT or ENOTDIR) and from a file that cannot be
// executed.
func TestExecFound(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog")
	require.NoError(t, os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755))
	plain := filepath.Join(dir, "plain")
	require.NoError(t, os.WriteFile(plain, []byte("x"), 0o644))
	require.NoError(t, os.Symlink(prog, filepath.Join(dir, "link")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "dangling")))
	pid := os.Getpid()
	for name, want := range map[string]string{
		prog:                             foundYes,
		filepath.Join(dir, "link"):       foundYes,
		filepath.Join(dir, "missing"):    foundNo,
		filepath.Join(dir, "dangling"):   foundNo,
		filepath.Join(plain, "sub"):      foundNo, // ENOTDIR
		filepath.Join(dir, "nodir", "x"): foundNo,
		plain:                            foundNotExec,
		dir:                              foundNotExec,
		filepath.Join(dir, "..", "prog"): foundNo,
	} {
		got, err := execFound(pid, name)
		assert.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
	_, err := execFound(pid, "/proc/self/exe")
	assert.Error(t, err, "a magic link is not told, so the exec is taken to run")
	_, err = execFound(pid, "relative")
	assert.Error(t, err)
}

// TestProcIDs reads a thread's process and parent: for this process's
// first thread and for another of its threads, the same.
func TestProcIDs(t *testing.T) {
	tgid, ppid, err := procIDs(os.Getpid())
	require.NoError(t, err)
	assert.Equal(t, os.Getpid(), tgid)
	assert.Equal(t, os.Getppid(), ppid)

	// two goroutines each locked to a thread: at most one is the first
	tids, release := make(chan int), make(chan struct{})
	defer close(release)
	for range 2 {
		go func() {
			runtime.LockOSThread() // the thread ends with the goroutine
			tids <- unix.Gettid()
			<-release
		}()
	}
	tid := <-tids
	if other := <-tids; tid == os.Getpid() {
		tid = other
	}
	require.NotEqual(t, os.Getpid(), tid)
	tgid, ppid, err = procIDs(tid)
	require.NoError(t, err)
	assert.Equal(t, os.Getpid(), tgid, "a thread's process")
	assert.Equal(t, os.Getppid(), ppid)
}

// TestAncestors: the parents above a process, nearest first, bounded.
func TestAncestors(t *testing.T) {
	up := ancestors(os.Getpid())
	if len(up) == 0 || up[0] != os.Getppid() {
		t.Fatalf("ancestors(self) = %v, want the parent %d first", up, os.Getppid())
	}
	if len(up) > maxAncestors {
		t.Errorf("%d ancestors, want at most %d", len(up), maxAncestors)
	}
	if got := ancestors(1); len(got) != 0 {
		t.Errorf("ancestors(1) = %v, want none", got)
	}
}
