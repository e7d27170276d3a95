package upstream

import (
	"context"
	"fmt"
	"github.com/sealmark/sealmark/observers/internal/ledger"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sealmark/sealmark/observers"
)

// Options configure a Stub. The zero value serves the default routes except
// /redirect.
type Options struct {
	// Redirect is where GET /redirect sends the server with a 302: the
	// loopback listener's URL + "/redirected". It must be a loopback http(s)
	// URL (a loopback IP literal or localhost). Empty: /redirect is not
	// special and gets the catch-all answer.
	Redirect string
	// Routes are scripted responses, matched before the default routes, in
	// order. A Location header must point at loopback like Redirect, or be a
	// path on the stub.
	Routes []Route
	// Host is the host the server is configured to use for this upstream,
	// such as "api.example.test" (compared with each request's Host header
	// without its port) or "api.example.test:8443" (compared with the port).
	// A request that carries credentials under another Host is marked
	// host_mismatch. Empty: no comparison.
	Host string
}

var _ observers.Observer = (*Stub)(nil)

// limits bound what a hostile client can make the stub hold.
type limits struct {
	conns       int   // connections served at once; more are closed unread
	records     int   // records kept until a Collect or Close returns them
	tokens      int   // tokens remembered for attribution
	credentials int   // credentials kept for Credentials, newest kept
	body        int64 // request body bytes read
	headerBytes int   // http.Server.MaxHeaderBytes

	readHeader, read, write, idle time.Duration // http.Server timeouts
	shutdown                      time.Duration // at Close, for requests in flight
}

var defaultLimits = limits{
	conns:       64,
	records:     10_000,
	tokens:      4096,
	credentials: 1024,
	body:        64 << 10,
	headerBytes: 16 << 10,
	readHeader:  2 * time.Second,
	read:        5 * time.Second,
	write:       5 * time.Second,
	idle:        5 * time.Second,
	shutdown:    500 * time.Millisecond,
}

// Stub is an HTTP server on 127.0.0.1 that plays a server's upstream API
// and records every request. It implements observers.Observer. Create it
// with Start and always Close it.
type Stub struct {
	lim      limits
	url      string
	redirect string
	host     string
	routes   []Route
	srv      *http.Server
	ln       *limitListener
	book     *ledger.Ledger
	vault    *vault
	served   chan struct{} // closed when Serve returns

	mu       sync.Mutex
	closing  bool // handlers no longer start
	closed   bool // Close was called
	handlers sync.WaitGroup
	inflight atomic.Int32 // handlers running
}

// Start serves the stub on 127.0.0.1 on a free port. It fails when
// Options.Redirect or a route is invalid, or when it cannot listen.
func Start(o Options) (*Stub, error) { return start(o, defaultLimits) }

func start(o Options, lim limits) (*Stub, error) {
	if o.Redirect != "" {
		if err := loopbackTarget(o.Redirect); err != nil {
			return nil, fmt.Errorf("upstream: Redirect: %w", err)
		}
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Stub{
		lim:      lim,
		url:      "http://" + ln.Addr().String(),
		redirect: o.Redirect,
		host:     o.Host,
		book:     ledger.New("upstream", lim.records, lim.conns, lim.tokens),
		vault:    &vault{max: lim.credentials},
		served:   make(chan struct{}),
	}
	if s.routes, err = scripted(o, s.url); err != nil {
		ln.Close()
		return nil, err
	}
	s.srv = &http.Server{
		Handler:                      s,
		ReadHeaderTimeout:            lim.readHeader,
		ReadTimeout:                  lim.read,
		WriteTimeout:                 lim.write,
		IdleTimeout:                  lim.idle,
		MaxHeaderBytes:               lim.headerBytes,
		DisableGeneralOptionsHandler: true, // OPTIONS * is recorded too
		ErrorLog:                     log.New(io.Discard, "", 0),
	}
	s.ln = &limitListener{
		Listener: ln,
		slots:    make(chan struct{}, lim.conns),
		refuse:   func() { s.book.Refuse(s.book.Current()) },
	}
	go func() {
		defer close(s.served)
		s.srv.Serve(s.ln)
	}()
	return s, nil
}

// URL is the stub's address, "http://127.0.0.1:PORT": the {upstream}
// placeholder.
func (s *Stub) URL() string { return s.url }

// Name returns "upstream".
func (s *Stub) Name() string { return "upstream" }

// Begin opens the probe with this token and closes the one open before. A
// request carrying no registered token is attributed to the probe open when
// its handling started. Begin("") opens none.
func (s *Stub) Begin(token string) { s.book.Begin(token) }

// Collect returns the records attributed to token that no Collect returned
// yet, with a loss record for each kind of loss counted against it.
func (s *Stub) Collect(token string) []observers.Record { return s.book.Collect(token) }

// Credentials returns the credentials seen in requests attributed to token,
// oldest first. Unlike Collect it returns them again on every call; the
// stub keeps the most recent 1024 across all tokens.
func (s *Stub) Credentials(token string) []Credential { return s.vault.of(token) }

// Close stops the server, gives requests in flight a short while to finish
// (then cuts them), waits for its handlers, and returns every record not
// yet returned (oldest first) followed by the loss records. Later calls
// return nil.
func (s *Stub) Close() []observers.Record {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), s.lim.shutdown)
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close() // cut what is still open: silent and slow clients
	}
	cancel()
	<-s.served

	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	// Every connection is closed, so a handler's reads and writes fail at
	// once; the bound is a safety net.
	ledger.WaitFor(&s.handlers, s.lim.write+time.Second)
	return s.book.Close()
}

// enter admits a handler unless Close is past the point of waiting.
func (s *Stub) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.handlers.Add(1)
	s.inflight.Add(1)
	return true
}

// ServeHTTP records r and answers it. It never sends a request anywhere.
func (s *Stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	defer func() {
		s.inflight.Add(-1)
		s.handlers.Done()
	}()
	at, open := time.Now(), s.book.Current()
	body, full := readBody(r.Body, s.lim.body)
	resp := s.answer(r)
	creds := credentialsOf(r)
	tok, how := s.book.Attribute(requestBytes(r, body), open)
	s.vault.add(tok, creds)
	// Recorded before answering, so a client holding the answer knows the
	// record is there.
	s.book.Add(s.record(r, at, len(body), full, resp.status, creds, tok, how))
	resp.write(w)
}

// readBody reads at most max bytes of body; full reports that more was
// there.
func readBody(body io.Reader, max int64) (b []byte, full bool) {
	b, _ = io.ReadAll(io.LimitReader(body, max+1))
	if int64(len(b)) > max {
		return b[:max], true
	}
	return b, false
}
