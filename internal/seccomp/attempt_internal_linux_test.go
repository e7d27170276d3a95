package seccomp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestOpenFlags(t *testing.T) {
	for flags, want := range map[uint64]string{
		unix.O_RDONLY | unix.O_CLOEXEC:                               "O_RDONLY",
		unix.O_WRONLY | unix.O_CREAT | unix.O_TRUNC:                  "O_WRONLY|O_CREAT|O_TRUNC",
		unix.O_RDWR | unix.O_APPEND | unix.O_NONBLOCK:                "O_RDWR|O_APPEND",
		unix.O_WRONLY | unix.O_CREAT | unix.O_EXCL | unix.O_NOFOLLOW: "O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW",
		unix.O_RDWR | unix.O_TMPFILE:                                 "O_RDWR|O_TMPFILE",
		unix.O_RDONLY | unix.O_DIRECTORY:                             "O_RDONLY|O_DIRECTORY",
		3:                                                            "O_ACCMODE",
	} {
		assert.Equal(t, want, openFlags(flags), "%#x", flags)
	}
}

func TestSignalName(t *testing.T) {
	assert.Equal(t, "0", signalName(0), "signal 0 checks that the target exists")
	assert.Equal(t, "SIGWINCH", signalName(int32(unix.SIGWINCH)))
	assert.Equal(t, "SIGKILL", signalName(9))
	assert.Equal(t, "40", signalName(40), "a real-time signal has no name")
}

// TestAbsolute resolves relative paths as this process would.
func TestAbsolute(t *testing.T) {
	pid := os.Getpid()
	cwd, err := os.Getwd()
	require.NoError(t, err)
	got, err := absolute(pid, unix.AT_FDCWD, "a/../b")
	assert.NoError(t, err)
	assert.Equal(t, filepath.Join(cwd, "b"), got)
	got, err = absolute(pid, unix.AT_FDCWD, "/etc/x")
	assert.NoError(t, err)
	assert.Equal(t, "/etc/x", got, "an absolute path as given")

	dir := t.TempDir()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(fd)
	got, err = absolute(pid, int64(fd), "f")
	assert.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "f"), got)

	var p [2]int
	require.NoError(t, unix.Pipe2(p[:], unix.O_CLOEXEC))
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	got, err = absolute(pid, int64(p[0]), "f")
	assert.ErrorContains(t, err, "not a directory")
	assert.Equal(t, "f", got, "unresolved: as given")
	_, err = absolute(pid, -5, "f")
	assert.Error(t, err)
}

// TestCallerIDs reads this process's own ids, and a pidfd's target.
func TestCallerIDs(t *testing.T) {
	id, err := callerIDs(os.Getpid())
	require.NoError(t, err)
	assert.EqualValues(t, os.Getpid(), id.tgid)
	assert.EqualValues(t, os.Getpid(), id.nsTgid, "the test runs in the namespace its /proc shows")
	assert.EqualValues(t, os.Getpid(), id.nsTid, "the main thread's id is the process's")

	tid := unix.Gettid()
	id, err = callerIDs(tid)
	require.NoError(t, err)
	assert.EqualValues(t, tid, id.nsTid)
	assert.EqualValues(t, os.Getpid(), id.nsTgid)

	pidfd, err := unix.PidfdOpen(os.Getpid(), 0)
	require.NoError(t, err)
	defer unix.Close(pidfd)
	target, err := pidfdTarget(os.Getpid(), pidfd)
	require.NoError(t, err)
	assert.EqualValues(t, os.Getpid(), target)
	_, err = pidfdTarget(os.Getpid(), 0) // stdin: not a pidfd
	assert.Error(t, err)
	_, err = callerIDs(-1)
	assert.Error(t, err, "no such process")
}

func TestWriteIntent(t *testing.T) {
	assert.EqualValues(t, unix.O_WRONLY|unix.O_RDWR|unix.O_CREAT|unix.O_TRUNC|unix.O_APPEND, WriteIntent)
}
