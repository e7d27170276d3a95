//go:build unix

package files

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSweepStaleRemovesOnlyDeadOwners: a barrier directory whose process is
// gone is removed; one of a live process, one without a pid and another
// prefix's are kept.
func TestSweepStaleRemovesOnlyDeadOwners(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"sealmark-files-4242-abc", "sealmark-files-7-def", "sealmark-files-x-1", "sealmark-other-4242-1"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, name), 0o700))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sealmark-files-4242-abc", "3"), nil, 0o600))
	removed := sweepStale(dir, os.Getuid(), func(pid int) bool { return pid == 4242 })
	assert.Equal(t, []string{filepath.Join(dir, "sealmark-files-4242-abc")}, removed)
	for _, kept := range []string{"sealmark-files-7-def", "sealmark-files-x-1", "sealmark-other-4242-1"} {
		assert.DirExists(t, filepath.Join(dir, kept))
	}
	assert.Empty(t, sweepStale(dir, os.Getuid()+1, func(int) bool { return true }), "another user's directories are left alone")
}

// TestBarrierDirectoryCarriesThePid: the barrier directory is named for
// SweepStale, and Close removes it.
func TestBarrierDirectoryCarriesThePid(t *testing.T) {
	e, err := startEvents(t.TempDir(), nil)
	if err != nil {
		t.Skipf("no event watcher here: %v", err)
	}
	assert.Regexp(t, `^sealmark-files-\d+-`, filepath.Base(e.barrier))
	assert.Contains(t, filepath.Base(e.barrier), "sealmark-files-"+strconv.Itoa(os.Getpid())+"-")
	e.close()
	assert.NoDirExists(t, e.barrier)
}
