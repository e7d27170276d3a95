package contain

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// A server the harness reaches over the network (an HTTP server it
// started) listens inside its network namespace, where the harness cannot
// dial. For each of Options.Reverse the inner shim listens on the host's
// loopback at the same port and forwards each connection into the
// namespace: the harness dials the server's URL as if it were outside.

// namespaceFD opens the calling thread's network namespace, for dialing
// into it from other threads later.
func namespaceFD() (int, error) {
	fd, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("opening the network namespace: %w", err)
	}
	return fd, nil
}

// dialInside connects to addr inside the network namespace nsfd, from a
// thread of its own that joins the namespace and ends with the dial's
// goroutine (it stays locked, so the runtime discards it).
func dialInside(nsfd int, addr string) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		if err := unix.Setns(nsfd, unix.CLONE_NEWNET); err != nil {
			ch <- result{nil, fmt.Errorf("setns: %w", err)}
			return
		}
		c, err := net.DialTimeout("tcp", addr, proxyDialTimeout)
		ch <- result{c, err}
	}()
	r := <-ch
	return r.c, r.err
}

// reversePoll is how often the shim looks whether the server listens yet.
const reversePoll = 20 * time.Millisecond

// listenOutside forwards each port of the host's loopback (127.0.0.1, and
// ::1 where the host has it) to the same address inside nsfd, once the
// server listens there: until then the host's port stays closed, so a
// harness waiting for the server to accept connections waits for the
// server, not for the shim. Each address is watched on its own; one the
// server never listens on is never opened. What goes wrong is said on
// stderr, the server's log.
func listenOutside(p *proxy, nsfd int, ports []int) {
	for _, port := range ports {
		for _, host := range loopbackHosts {
			addr := net.JoinHostPort(host, strconv.Itoa(port))
			go forwardWhenListening(p, nsfd, addr)
		}
	}
}

// forwardWhenListening waits until addr accepts a connection inside nsfd,
// then listens on addr on the host and forwards into the namespace. It
// runs on an unlocked thread, which is in the host's network namespace.
func forwardWhenListening(p *proxy, nsfd int, addr string) {
	for {
		c, err := dialInside(nsfd, addr)
		if err == nil {
			c.Close()
			break
		}
		time.Sleep(reversePoll)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sealmark-contain: the server listens on %s in its namespace, but the host's %s cannot be forwarded to it: %v\n", addr, addr, err)
		return
	}
	p.serveDial(ln, func() (net.Conn, error) { return dialInside(nsfd, addr) })
}
