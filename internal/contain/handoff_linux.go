package contain

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/seccomp"
)

// newHandoff makes the socket pair; the shim's end goes into the spec's
// ExtraFiles.
func newHandoff() (*Handoff, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("contain: seccomp hand-off: socketpair: %w", err)
	}
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, fmt.Errorf("contain: seccomp hand-off: %w", err)
	}
	// non-blocking, so os.File reads honour deadlines
	return &Handoff{harness: os.NewFile(uintptr(fds[0]), "seccomp-handoff"), shim: os.NewFile(uintptr(fds[1]), "seccomp-handoff-shim")}, nil
}

// Complete takes over the seccomp listener of the server started from the
// wrapped spec (pid is launch's Process.Pid) and returns the loop that
// answers it, already running and reporting to sink (an egress Observer):
// allow judges IP and unix destinations (nil means seccomp.Loopback;
// seccomp.Ports is stricter). It waits at most a few
// seconds for the shim; on any error the shim exits 125 without running
// the server, so the caller stops the process and reports the start as
// failed (and removes the cgroup leaf). Call it once, right after
// launch.Start. Without the seccomp layer it returns nil, nil.
func (h *Handoff) Complete(pid int, allow func(addr net.Addr) bool, sink seccomp.Sink) (seccomp.Supervisor, error) {
	if h == nil || h.harness == nil {
		return nil, nil
	}
	defer h.release()
	h.shim.Close() // the shim holds its own copy; EOF below if it dies
	holder, num, err := h.report()
	if err != nil {
		return nil, err
	}
	if holder != pid && parent(holder) != pid {
		return nil, fmt.Errorf("contain: seccomp hand-off: pid %d is not the shim (pid %d) or its child", holder, pid)
	}
	pidfd, err := unix.PidfdOpen(holder, 0)
	if err != nil {
		return nil, fmt.Errorf("contain: seccomp hand-off: pidfd_open(%d): %w", holder, err)
	}
	defer unix.Close(pidfd)
	fd, err := unix.PidfdGetfd(pidfd, num, 0)
	if err != nil {
		return nil, fmt.Errorf("contain: seccomp hand-off: pidfd_getfd(%d, %d): %w", holder, num, err)
	}
	sup := seccomp.Supervise(fd, allow, sink) // before the ack: the shim's exec is the first call it answers
	_ = h.harness.SetWriteDeadline(time.Now().Add(handoffTimeout))
	if _, err := h.harness.Write([]byte{handoffAck}); err != nil {
		sup.Stop(time.Second)
		return nil, fmt.Errorf("contain: seccomp hand-off: ack: %w", err)
	}
	return sup, nil
}

// report reads the shim's "<pid> <fd>\n".
func (h *Handoff) report() (pid, fd int, err error) {
	_ = h.harness.SetReadDeadline(time.Now().Add(handoffTimeout))
	var line []byte
	buf := make([]byte, 64)
	for !bytes.Contains(line, []byte{'\n'}) {
		n, err := h.harness.Read(buf)
		line = append(line, buf[:n]...)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return 0, 0, errors.New("contain: seccomp hand-off: no report from the shim within " + handoffTimeout.String())
			}
			return 0, 0, fmt.Errorf("contain: seccomp hand-off: the shim ended before reporting its listener (%v)", err)
		}
		if len(line) > 64 {
			return 0, 0, errors.New("contain: seccomp hand-off: report too long")
		}
	}
	f := strings.Fields(string(line))
	if len(f) == 2 {
		pid, err1 := strconv.Atoi(f[0])
		fd, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil && pid > 0 && fd >= 0 {
			return pid, fd, nil
		}
	}
	return 0, 0, fmt.Errorf("contain: seccomp hand-off: bad report %q", line)
}

// parent returns pid's parent, or 0.
func parent(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(string(f[1]))
	return p
}
