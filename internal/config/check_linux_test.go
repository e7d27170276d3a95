package config

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestCheckSandboxDirWritable refuses a sandbox.dir the harness cannot
// write (a read-only bind mount where one can be made, else a directory
// without write permission when not root) and accepts a writable one.
func TestCheckSandboxDirWritable(t *testing.T) {
	r := &Resolved{Settings: Defaults()}
	r.Command = "npx"
	r.SandboxDir = t.TempDir()
	require.NoError(t, r.Check())
	entries, err := os.ReadDir(r.SandboxDir)
	require.NoError(t, err)
	assert.Empty(t, entries, "the writability check left something behind")

	ro := t.TempDir()
	if err := unix.Mount(ro, ro, "", unix.MS_BIND, ""); err == nil {
		t.Cleanup(func() { _ = unix.Unmount(ro, unix.MNT_DETACH) })
		require.NoError(t, unix.Mount("", ro, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""))
	} else if os.Geteuid() != 0 {
		require.NoError(t, os.Chmod(ro, 0o500))
		t.Cleanup(func() { _ = os.Chmod(ro, 0o700) })
	} else {
		t.Skip("root without mount rights: no directory it cannot write")
	}
	r.SandboxDir = ro
	err = r.Check()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `sandbox.dir: "`+ro+`" is not writable (`)
}
