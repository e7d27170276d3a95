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
