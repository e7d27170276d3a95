package contain

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// Proxy bounds.
const (
	proxyConns       = 64              // connections forwarded at once; more are closed
	proxyDialTimeout = 5 * time.Second // to reach the harness's port on the host
)

// proxy forwards the connections a server makes inside its network
// namespace to the harness's loopback ports on the host. It is the only
// way out of the namespace, and only to the ports it was given.
type proxy struct {
	slots chan struct{}
	wg    sync.WaitGroup
}

func newProxy() *proxy { return &proxy{slots: make(chan struct{}, proxyConns)} }

// serve accepts on ln until it is closed and forwards each connection to
// target. The goroutine that calls it must not be locked to a thread in
// the namespace: the dial happens on whatever thread runs the forwarder.
func (p *proxy) serve(ln net.Listener, target string) {
	p.serveDial(ln, func() (net.Conn, error) { return net.DialTimeout("tcp", target, proxyDialTimeout) })
}

// serveDial accepts on ln until it is closed and forwards each connection
// to what dial connects.
func (p *proxy) serveDial(ln net.Listener, dial func() (net.Conn, error)) {
	for {
		c, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		select {
		case p.slots <- struct{}{}:
			p.wg.Add(1)
			go p.forward(c, dial)
		default:
			c.Close()
		}
	}
}

func (p *proxy) forward(in net.Conn, dial func() (net.Conn, error)) {
	defer func() {
		<-p.slots
		p.wg.Done()
	}()
	out, err := dial()
	if err != nil {
		in.Close()
		return
	}
	errs := make(chan error, 2)
	go func() { errs <- halfCopy(out, in) }()
	go func() { errs <- halfCopy(in, out) }()
	if err := <-errs; err != nil {
		// a reset or a failed write: the other direction cannot finish either
		in.Close()
		out.Close()
	}
	<-errs
	in.Close()
	out.Close()
}

// halfCopy copies src to dst, then closes dst for writing so the peer sees
// EOF. It returns nil when src ended cleanly.
func halfCopy(dst, src net.Conn) error {
	_, err := io.Copy(dst, src)
	if tc, ok := dst.(interface{ CloseWrite() error }); ok && err == nil {
		err = tc.CloseWrite()
	}
	return err
}
