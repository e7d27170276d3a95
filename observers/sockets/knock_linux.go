package sockets

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// dialIn dials addr from the network namespace of pid: directly when it is
// the harness's own, else from a thread that joins it and then returns to
// its own namespace before it is unlocked.
//
// The thread must not be discarded (a locked goroutine that ends takes its
// thread with it): the runtime may have forked a server from that very
// thread earlier, and the kernel delivers Pdeathsig when the forking
// thread exits, not the process, so discarding it would kill that server.
// Only when the way back fails does the thread stay locked and go.
func dialIn(pid int, addr string, wait time.Duration) (net.Conn, error) {
	ns := "/proc/" + strconv.Itoa(pid) + "/ns/net"
	theirs, err := os.Stat(ns)
	if err != nil {
		return nil, fmt.Errorf("its network namespace: %w", err)
	}
	ours, err := os.Stat("/proc/self/ns/net")
	if err == nil && os.SameFile(ours, theirs) {
		return net.DialTimeout("tcp", addr, wait)
	}
	fd, err := unix.Open(ns, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("its network namespace: %w", err)
	}
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer unix.Close(fd)
		runtime.LockOSThread()
		home, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread() // nothing joined yet: the thread is as it was
			ch <- result{nil, fmt.Errorf("the harness's own network namespace: %w", err)}
			return
		}
		defer unix.Close(home)
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			ch <- result{nil, fmt.Errorf("joining its network namespace: %w", err)}
			return
		}
		c, err := net.DialTimeout("tcp", addr, wait)
		ch <- result{c, err}
		if unix.Setns(home, unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
	}()
	r := <-ch
	return r.c, r.err
}
