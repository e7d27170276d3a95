//go:build !linux

package contain

import (
	"errors"
	"os"
	"syscall"
)

// processStart is unknown outside Linux.
func processStart(int) (uint64, error) { return 0, errors.ErrUnsupported }

// alive reports whether the owner's pid still exists (a reused pid counts
// as alive: its sandbox stays).
func (o owner) alive() bool {
	p, err := os.FindProcess(o.Pid)
	if err != nil {
		return false
	}
	return !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}
