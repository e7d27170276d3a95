//go:build !linux

package quota

import (
	"errors"
	"runtime"
)

var errNot = errors.New("quota: a size-limited filesystem needs Linux, not " + runtime.GOOS)

// Mount reports that this platform has no size-limited filesystem here.
func Mount(dir string, bytes int64) error { return errNot }

// Try reports that this platform has no size-limited filesystem here.
func Try() error { return errNot }

// Mounted is false: Mount never mounts here.
func Mounted(dir string) bool { return false }

// Unmount has nothing to do here.
func Unmount(dir string) error { return nil }

// Usage is not known here.
func Usage(dir string) (used, free int64, err error) { return 0, 0, errNot }

// GuardName is the name under which a binary acts as a quota's guard.
const GuardName = "sm-quota-guard"

// Guard has nothing to guard here.
func Guard(dir, exe string) (release func(), err error) { return func() {}, nil }

// GuardMain has nothing to do here.
func GuardMain(args []string) int { return 0 }
