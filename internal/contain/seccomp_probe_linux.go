package contain

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/seccomp"
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
	seen := &probeSink{}
	sup := seccomp.Supervise(fd, nil, seen)
	// A stuck supervisor must not hang the probe: closing the listener
	// makes the pending connect fail with ENOSYS.
	stop := time.AfterFunc(2*time.Second, func() { sup.Stop(time.Second) })
	defer stop.Stop()
	defer sup.Stop(time.Second)

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
	if seen.allowedUnixConnect() {
		return nil
	}
	return fmt.Errorf("the connect was not observed (%v)", err)
}

// probeSink keeps what the probe's loop saw.
type probeSink struct {
	mu   sync.Mutex
	data []map[string]string
}

func (p *probeSink) Add(_, _ string, data map[string]string, _ bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.data) < 64 {
		p.data = append(p.data, data)
	}
}
func (p *probeSink) Count(bool)          {}
func (p *probeSink) Stale()              {}
func (p *probeSink) Loss(string, ...any) {}

// allowedUnixConnect reports whether an allowed unix connect was seen.
func (p *probeSink) allowedUnixConnect() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range p.data {
		if d["op"] == "connect" && d["family"] == "unix" && d["verdict"] == "allow" {
			return true
		}
	}
	return false
}
