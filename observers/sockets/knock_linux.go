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
// the harness's own, else from a thread that joins it (the thread stays
// locked, so the runtime discards it when the goroutine ends).
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
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			ch <- result{nil, fmt.Errorf("joining its network namespace: %w", err)}
			return
		}
		c, err := net.DialTimeout("tcp", addr, wait)
		ch <- result{c, err}
	}()
	r := <-ch
	return r.c, r.err
}
