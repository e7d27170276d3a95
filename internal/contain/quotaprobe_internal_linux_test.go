package contain

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/quota"
)

// TestQuotaProbeCreatesNothing: the probe of the quota layer makes nothing
// in the temp directory, so no signal, panic or error can leave a
// directory of its there; it says what Mount would.
func TestQuotaProbeCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	in, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	require.NoError(t, err)
	defer unix.Close(in)
	_, err = unix.InotifyAddWatch(in, dir, unix.IN_CREATE|unix.IN_MOVED_TO)
	require.NoError(t, err)

	l := probeQuota()

	n, err := unix.Read(in, make([]byte, 4096))
	assert.ErrorIs(t, err, unix.EAGAIN, "the probe created something in the temp directory (%d bytes of events)", n)
	entries, _ := os.ReadDir(dir)
	assert.Empty(t, entries)

	mp := filepath.Join(t.TempDir(), "q")
	require.NoError(t, os.Mkdir(mp, 0o700))
	merr := quota.Mount(mp, 4096)
	_ = quota.Unmount(mp)
	assert.Equal(t, merr == nil, l.Applied, "the probe (%s) agrees with Mount (%v)", l.Why, merr)
}

// TestSweepRemovesStaleQuotaProbes: SweepStale removes a quota probe's
// directory (made only where the kernel has no fsopen) whose harness is
// gone, and one named the earlier way once it is old; it keeps a live
// harness's and a fresh one of the earlier kind.
func TestSweepRemovesStaleQuotaProbes(t *testing.T) {
	parent := t.TempDir()
	gone := exec.Command("true")
	require.NoError(t, gone.Run())
	start, err := processStart(os.Getpid())
	require.NoError(t, err)
	mk := func(name string) string {
		p := filepath.Join(parent, name)
		require.NoError(t, os.Mkdir(p, 0o700))
		return p
	}
	dead := mk(fmt.Sprintf("%s%d-%d-111", quotaProbePrefix, gone.Process.Pid, 12345))
	live := mk(fmt.Sprintf("%s%d-%d-222", quotaProbePrefix, os.Getpid(), start))
	old := mk(quotaProbePrefix + "333")
	hourAgo := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(old, hourAgo, hourAgo))
	fresh := mk(quotaProbePrefix + "444")

	did := SweepStale(parent)

	assert.NoDirExists(t, dead, "%q", did)
	assert.NoDirExists(t, old, "%q", did)
	assert.DirExists(t, live)
	assert.DirExists(t, fresh)
	assert.Contains(t, did, "removed stale quota probe "+dead)
}

// TestQuotaGuardKeepsTheOwnerFile: the file a quota's guard writes back on
// disk when the harness dies is the one SweepStale reads.
func TestQuotaGuardKeepsTheOwnerFile(t *testing.T) {
	assert.Equal(t, OwnerFile, quota.KeptFile)
}
