//go:build !linux

package process

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
)

// EnableSubreaper makes the harness the child subreaper of its descendants.
// Only Linux has one; elsewhere it returns an error.
func EnableSubreaper() error {
	return fmt.Errorf("process: no child subreaper on %s", runtime.GOOS)
}

func signalProc(root string, id ident, sig syscall.Signal) error { return errors.ErrUnsupported }

func reap(pid int) {}
