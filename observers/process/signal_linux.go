package process

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// EnableSubreaper makes the harness the child subreaper of its descendants
// (prctl PR_SET_CHILD_SUBREAPER): an orphan re-parents to the harness rather
// than to init, so Sweep can find it even after it left the server's process
// group and session. It needs no privilege. The harness must then reap what
// it adopts, which Sweep does.
func EnableSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// signalProc sends sig to the process id, and only to it: through a pidfd
// opened before its identity is checked, so a pid reused meanwhile is never
// signalled. Without pidfd (old kernels) the check comes right before kill.
func signalProc(root string, id ident, sig syscall.Signal) error {
	fd, err := unix.PidfdOpen(id.pid, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return err
		}
		if !sameProc(root, id) {
			return unix.ESRCH
		}
		return unix.Kill(id.pid, sig)
	}
	defer unix.Close(fd)
	if !sameProc(root, id) {
		return unix.ESRCH
	}
	return unix.PidfdSendSignal(fd, sig, nil, 0)
}

// reap collects the exit status of pid, an adopted zombie, without waiting.
func reap(pid int) {
	var ws unix.WaitStatus
	_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
}
