package loopback

import (
	"errors"
	"github.com/sealmark/sealmark/observers/internal/ledger"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/sealmark/sealmark/observers"
)

var _ observers.Observer = (*Listener)(nil)

// limits bound what a hostile client can make the listener hold.
type limits struct {
	conns   int           // connections served at once; more are closed unread
	records int           // records kept until a Collect or Close returns them
	tokens  int           // tokens remembered for attribution, newest kept
	read    int           // bytes read from one connection
	wait    time.Duration // how long one connection may take to send, from accept
	write   time.Duration // how long writing the answer may take
	grace   time.Duration // after the answer, and at Close, for what is still arriving
}

var defaultLimits = limits{
	conns:   64,
	records: 10_000,
	tokens:  4096,
	read:    8 << 10,
	wait:    2 * time.Second,
	write:   2 * time.Second,
	grace:   250 * time.Millisecond,
}

// Listener is the harness's own loopback listener: it records every
// connection and answers HTTP requests with a fixed body. It implements
// observers.Observer. Create it with Listen and always Close it.
type Listener struct {
	lim  limits
	ln4  net.Listener
	ln6  net.Listener // nil when IPv6 loopback is unavailable
	book *ledger.Ledger

	slots     chan struct{} // one per connection being served
	accepting sync.WaitGroup
	serving   sync.WaitGroup

	mu      sync.Mutex
	active  map[net.Conn]struct{}
	closing bool
}

// Listen starts a listener on 127.0.0.1 on a free port and, when IPv6
// loopback is available, another on [::1] (on its own free port). It fails
// only when 127.0.0.1 cannot be listened on.
func Listen() (*Listener, error) { return listen(defaultLimits) }

func listen(lim limits) (*Listener, error) {
	ln4, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l := &Listener{
		lim:    lim,
		ln4:    ln4,
		book:   ledger.New("loopback", lim.records, lim.conns, lim.tokens),
		slots:  make(chan struct{}, lim.conns),
		active: make(map[net.Conn]struct{}),
	}
	if ln6, err := net.Listen("tcp6", "[::1]:0"); err == nil {
		l.ln6 = ln6
	}
	for _, ln := range l.listeners() {
		l.accepting.Add(1)
		go l.accept(ln)
	}
	return l, nil
}

func (l *Listener) listeners() []net.Listener {
	if l.ln6 == nil {
		return []net.Listener{l.ln4}
	}
	return []net.Listener{l.ln4, l.ln6}
}

// URL is the listener's address on 127.0.0.1: "http://127.0.0.1:PORT", the
// {listener} placeholder.
func (l *Listener) URL() string { return "http://" + l.ln4.Addr().String() }

// URL6 is the listener's address on [::1], "http://[::1]:PORT6", or "" when
// IPv6 loopback is unavailable. Its port is not URL's.
func (l *Listener) URL6() string {
	if l.ln6 == nil {
		return ""
	}
	return "http://" + l.ln6.Addr().String()
}

// Port is the port of URL.
func (l *Listener) Port() int {
	_, port, _ := net.SplitHostPort(l.ln4.Addr().String())
	n, _ := strconv.Atoi(port)
	return n
}

// Name returns "loopback".
func (l *Listener) Name() string { return "loopback" }

// Begin opens the probe with this token and closes the one open before. A
// connection carrying no registered token is attributed to the probe open
// when it was accepted. Begin("") opens none: later connections without a
// token are attributed to no probe.
func (l *Listener) Begin(token string) { l.book.Begin(token) }

// Collect returns the records attributed to token that no Collect returned
// yet, with a loss record for each kind of loss counted against it.
func (l *Listener) Collect(token string) []observers.Record { return l.book.Collect(token) }

// Close stops accepting, gives the connections still open a short grace to
// finish sending, waits for them, and returns every record not yet
// returned (oldest first) followed by the loss records. Later calls return
// nil.
func (l *Listener) Close() []observers.Record {
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		return nil
	}
	l.closing = true
	l.mu.Unlock()

	for _, ln := range l.listeners() {
		ln.Close()
	}
	l.accepting.Wait() // every accepted connection is now in active
	l.mu.Lock()
	cut := time.Now().Add(l.lim.grace)
	for c := range l.active {
		c.SetReadDeadline(cut)
	}
	l.mu.Unlock()
	if !ledger.WaitFor(&l.serving, l.lim.write+2*l.lim.grace+time.Second) {
		// Every read and write has a deadline, so this is a safety net: end
		// what is still open so no goroutine outlives Close for long.
		l.mu.Lock()
		for c := range l.active {
			c.Close()
		}
		l.mu.Unlock()
		l.serving.Wait()
	}
	return l.book.Close()
}

// accept serves ln until it is closed.
func (l *Listener) accept(ln net.Listener) {
	defer l.accepting.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || l.isClosing() {
				return
			}
			time.Sleep(10 * time.Millisecond) // e.g. out of file descriptors
			continue
		}
		at, open := time.Now(), l.book.Current()
		select {
		case l.slots <- struct{}{}:
		default:
			c.Close()
			l.book.Refuse(open)
			continue
		}
		c.SetReadDeadline(at.Add(l.lim.wait))
		l.mu.Lock()
		l.active[c] = struct{}{}
		l.serving.Add(1)
		l.mu.Unlock()
		go l.serve(c, at, open)
	}
}

func (l *Listener) isClosing() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closing
}
