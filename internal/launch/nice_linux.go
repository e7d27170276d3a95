package launch

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// startNice is the niceness the harness process started with (its main
// thread's while the package initialises): what nice(1) gave it. A server
// starts at it, not at a niceness the harness's threads got later: a
// harness niced to yield to the machine (the load test nices itself to 19)
// must not starve the server it judges with itself. startNiceErr is set
// when it could not be read; the server then inherits the harness's.
var startNice, startNiceErr = threadNice()

// threadNice is the calling thread's niceness (Linux keeps one a thread).
func threadNice() (int, error) {
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	return 20 - prio, err // the system call's raw value is 20 - niceness
}

// atStartNice runs fork (cmd.Start: the fork happens on the calling
// thread, whose niceness the child inherits) on a thread set to startNice,
// then puts the thread back. Where the niceness cannot be lowered back to
// startNice (no CAP_SYS_NICE), the server inherits the thread's, as it
// would without this.
func atStartNice(fork func() error) error {
	if startNiceErr != nil {
		return fork()
	}
	runtime.LockOSThread()
	// Unlocked in any case: a locked thread whose goroutine ends is
	// destroyed, and the server's shim asks for SIGKILL when the thread
	// that forked it ends (PR_SET_PDEATHSIG follows the thread). Left at
	// startNice, as the process started, if putting it back fails.
	defer runtime.UnlockOSThread()
	now, err := threadNice()
	if err != nil || now == startNice || unix.Setpriority(unix.PRIO_PROCESS, 0, startNice) != nil {
		return fork()
	}
	defer func() { _ = unix.Setpriority(unix.PRIO_PROCESS, 0, now) }()
	return fork()
}
