//go:build unix

package launch

import (
	"errors"
	"os"
	"syscall"
)

func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the process group led by leader.
func signalGroup(leader *os.Process, sig groupSignal) error {
	s := syscall.SIGTERM
	if sig == sigKill {
		s = syscall.SIGKILL
	}
	return syscall.Kill(-leader.Pid, s)
}

// survivors reports whether any process of the group led by leader is still
// running, and their pids where the platform can list them (Linux). Call it
// only after the leader was reaped: a zombie leader still counts for kill(2).
func survivors(leader *os.Process) (pids []int, alive bool) {
	if err := syscall.Kill(-leader.Pid, 0); errors.Is(err, syscall.ESRCH) {
		return nil, false
	}
	return groupMembers(leader.Pid)
}

// terminateSignal is the polite stop Terminate sends the leader.
var terminateSignal os.Signal = syscall.SIGTERM
