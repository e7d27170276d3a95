package upstream

import (
	"net"
	"sync"
)

// limitListener serves at most cap(slots) connections at once: it accepts
// and closes the others unread, and tells refuse.
type limitListener struct {
	net.Listener
	slots  chan struct{}
	refuse func()
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &slotConn{Conn: c, slots: l.slots}, nil
		default:
			c.Close()
			l.refuse()
		}
	}
}

// slotConn gives its slot back when closed.
type slotConn struct {
	net.Conn
	slots chan struct{}
	once  sync.Once
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { <-c.slots })
	return err
}
