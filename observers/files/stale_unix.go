//go:build unix

package files

import (
	"errors"
	"os"
	"syscall"
)

// SweepStale removes the barrier directories in the temp directory that
// belong to processes of the calling user that no longer exist, and
// returns the paths it removed. A directory of another user, or of a
// process that still exists, is left alone.
func SweepStale() []string {
	return sweepStale(os.TempDir(), os.Getuid(), func(pid int) bool {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	})
}

// ownedBy reports whether info's owner is uid.
func ownedBy(info os.FileInfo, uid int) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == uid
}
