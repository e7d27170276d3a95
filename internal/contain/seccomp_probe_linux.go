package contain

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/observers/egress"
)

// trySeccompNotify runs the egress layer end to end on the calling
// (locked, no_new_privs) thread of a probe child: it installs the filter,
// takes a copy of the listener with pidfd_getfd as the harness will,
// answers it from another thread, and checks that a connect made under
// the filter is seen and let through.
func trySeccompNotify() error {
	listener, err := installNotify()
	if err != nil {
		return err
	}
	pidfd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		unix.Close(listener)
		return fmt.Errorf("pidfd_open: %w", err)
	}
	fd, err := unix.PidfdGetfd(pidfd, listener, 0)
	unix.Close(pidfd)
	unix.Close(listener)
	if err != nil {
		return fmt.Errorf("pidfd_getfd: %w", err)
	}
	obs := egress.Supervise(fd, nil)
	// A stuck supervisor must not hang the probe: closing the listener
	// makes the pending connect fail with ENOSYS.
	stop := time.AfterFunc(2*time.Second, func() { obs.Close() })
	defer stop.Stop()
	defer obs.Close()

	// An abstract unix address nobody listens on: allowed by the policy,
	// refused by the kernel (or by Landlock's scope), never ENOSYS.
	s, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(s)
	name := "@sealmark-probe-" + strconv.Itoa(os.Getpid())
	err = unix.Connect(s, &unix.SockaddrUnix{Name: name})
	if errors.Is(err, unix.ENOSYS) {
		return errors.New("the notification was not answered (ENOSYS)")
	}
	for _, r := range obs.Collect("") {
		if r.Data["op"] == "connect" && r.Data["family"] == "unix" && r.Data["verdict"] == "allow" {
			return nil
		}
	}
	return fmt.Errorf("the connect was not observed (%v)", err)
}
