//go:build !unix

package launch

import (
	"errors"
	"os"
	"syscall"
)

// Without process groups only the leader itself can be stopped, and only
// forcibly.

func groupAttr() *syscall.SysProcAttr { return nil }

func signalGroup(leader *os.Process, sig groupSignal) error {
	if sig != sigKill {
		return errors.New("launch: only a forced kill is supported on this platform")
	}
	return leader.Kill()
}

func survivors(leader *os.Process) ([]int, bool) { return nil, false }

// terminateSignal is the polite stop Terminate sends the leader: none
// exists here but a forced kill.
var terminateSignal = os.Kill
