package contain_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/quota"
)

// startMarked starts the test binary sleeping with marker in its
// environment; cleanup kills and reaps it.
func startMarked(t *testing.T, marker string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, childArg, "sleep")
	cmd.Env = []string{marker}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// startTime reads field 22 of /proc/PID/stat.
func startTime(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	require.NoError(t, err)
	return string(bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])[19])
}

func writeOwnerFile(t *testing.T, top string, pid int, start, marker string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(top, 0o700))
	body := fmt.Sprintf("sealmark-owner 1\npid %d\nstart %s\nrun %s\n", pid, start, strings.TrimPrefix(marker, "SEALMARK_RUN="))
	require.NoError(t, os.WriteFile(filepath.Join(top, contain.OwnerFile), []byte(body), 0o600))
}

func TestSweepStale(t *testing.T) {
	parent := t.TempDir()

	// A run whose harness died: its directory and its marked process go.
	deadMarker := newMarker(t)
	dead := startMarked(t, "X=1") // stands for the dead harness
	deadStart := startTime(t, dead.Process.Pid)
	require.NoError(t, dead.Process.Kill())
	_ = dead.Wait()
	staleTop := filepath.Join(parent, "sealmark-0000000000000001")
	writeOwnerFile(t, staleTop, dead.Process.Pid, deadStart, deadMarker)
	require.NoError(t, os.MkdirAll(filepath.Join(staleTop, "root", "locked"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(staleTop, "root", "locked", "f"), nil, 0o600))
	require.NoError(t, os.Chmod(filepath.Join(staleTop, "root", "locked"), 0o500))
	orphan := startMarked(t, deadMarker)

	// A directory whose owner pid now belongs to another process (this
	// one, with another start time): stale too.
	reusedTop := filepath.Join(parent, "sealmark-0000000000000002")
	writeOwnerFile(t, reusedTop, os.Getpid(), "1", "")

	// A live run: this process owns it; its marked process stays.
	liveMarker := newMarker(t)
	liveTop := filepath.Join(parent, "sealmark-0000000000000003")
	require.NoError(t, os.Mkdir(liveTop, 0o700))
	require.NoError(t, contain.WriteOwner(liveTop, liveMarker))
	liveServer := startMarked(t, liveMarker)

	// Not proof of anything: no owner file, or not a sealmark directory.
	noOwner := filepath.Join(parent, "sealmark-0000000000000004")
	require.NoError(t, os.Mkdir(noOwner, 0o700))
	other := filepath.Join(parent, "other")
	writeOwnerFile(t, other, dead.Process.Pid, deadStart, deadMarker)

	did := SweepStale(t, parent)

	assert.NoDirExists(t, staleTop)
	assert.NoDirExists(t, reusedTop)
	assert.DirExists(t, liveTop)
	assert.DirExists(t, noOwner)
	assert.DirExists(t, other)
	err := orphan.Wait()
	assert.Equal(t, "signal: killed", fmt.Sprint(err), "the stale run's process")
	assert.NoError(t, syscall.Kill(liveServer.Process.Pid, 0), "the live run's process must survive")
	assert.Contains(t, did, fmt.Sprintf("killed pid %d of stale run %s", orphan.Process.Pid, strings.TrimPrefix(deadMarker, "SEALMARK_RUN=")))
	var sandboxes []string
	for _, d := range did {
		if !strings.Contains(d, "stale cgroup") { // stale leaves of other runs on this machine
			sandboxes = append(sandboxes, d)
		}
	}
	assert.Len(t, sandboxes, 3, "one kill and two removals: %q", did)
}

// SweepStale calls contain.SweepStale and logs what it did.
func SweepStale(t *testing.T, parent string) []string {
	did := contain.SweepStale(parent)
	for _, d := range did {
		t.Log(d)
	}
	return did
}

func TestSweepStaleDistrustsOtherUsers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a directory of another user")
	}
	parent := t.TempDir()
	top := filepath.Join(parent, "sealmark-0000000000000005")
	writeOwnerFile(t, top, 1<<22+1, "1", "")
	require.NoError(t, os.Chown(top, 65534, 65534))
	SweepStale(t, parent)
	assert.DirExists(t, top, "a directory of another user is not ours to remove")
}

// TestSweepStaleUnmountsQuota: a dead run's sandbox that is a quota
// filesystem (sandbox.max_mib enforced) is unmounted and removed, files
// and all; a live run's stays mounted.
func TestSweepStaleUnmountsQuota(t *testing.T) {
	parent := t.TempDir()
	dead := startMarked(t, "X=1")
	deadStart := startTime(t, dead.Process.Pid)
	require.NoError(t, dead.Process.Kill())
	_ = dead.Wait()
	staleTop := filepath.Join(parent, "sealmark-0000000000000001")
	require.NoError(t, os.Mkdir(staleTop, 0o700))
	if err := quota.Mount(staleTop, 1<<20); err != nil {
		t.Skipf("no quota here: %v", err)
	}
	t.Cleanup(func() { _ = quota.Unmount(staleTop) })
	writeOwnerFile(t, staleTop, dead.Process.Pid, deadStart, newMarker(t))
	require.NoError(t, os.WriteFile(filepath.Join(staleTop, "left"), []byte("x"), 0o600))

	liveTop := filepath.Join(parent, "sealmark-0000000000000002")
	require.NoError(t, os.Mkdir(liveTop, 0o700))
	require.NoError(t, quota.Mount(liveTop, 1<<20))
	t.Cleanup(func() { _ = quota.Unmount(liveTop) })
	require.NoError(t, contain.WriteOwner(liveTop, newMarker(t)))

	did := SweepStale(t, parent)
	assert.NoDirExists(t, staleTop)
	assert.False(t, quota.Mounted(staleTop), "the stale quota is unmounted")
	assert.True(t, quota.Mounted(liveTop), "the live run's quota stays")
	assert.Contains(t, strings.Join(did, "\n"), "removed stale sandbox "+staleTop)
}
