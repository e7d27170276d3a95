package sockets

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"time"
)

// A listener is spoken to once, so that its record says what it serves: a
// plain HTTP GET / over loopback, in the listener's own network namespace,
// bounded in time and bytes. Only ever a loopback address is dialled: a
// listener bound to another address alone is described, never contacted.

const (
	knockWait  = time.Second // for the connection and the answer
	knockRead  = 2048        // bytes of the answer read
	maxKnocked = 8           // listeners spoken to per Observer
)

// Service is what a listener answered: whether it speaks HTTP, the status of
// GET / and whether it asked for credentials.
type Service struct {
	Reached bool   // a connection was made
	HTTP    bool   // the answer began with an HTTP status line
	Status  int    // the HTTP status of GET /
	Server  string // its Server header, if any
	Open    bool   // HTTP, and it answered without asking for credentials (not 401, 403 or 407)
	Said    string // the first bytes of a non-HTTP answer, quoted
	Why     string // why it was not reached, or not spoken to
}

// String describes the service in words: "HTTP without authentication
// (GET / → 200)", "not HTTP: it sent \"...\"", ...
func (s Service) String() string {
	switch {
	case s.Why != "":
		return s.Why
	case s.HTTP && s.Open:
		return fmt.Sprintf("HTTP without authentication (GET / → %d%s)", s.Status, serverName(s.Server))
	case s.HTTP:
		return fmt.Sprintf("HTTP that asks for credentials (GET / → %d%s)", s.Status, serverName(s.Server))
	case s.Said != "":
		return "a protocol other than HTTP: it sent " + s.Said
	}
	return fmt.Sprintf("a service that accepts connections and said nothing to an HTTP request within %s", knockWait)
}

func serverName(s string) string {
	if s == "" {
		return ""
	}
	return ", Server: " + strconv.Quote(s)
}

// knockAddr is the loopback address at which l is reached, or "" with why
// it is not contacted.
func knockAddr(l Listening) (addr, why string) {
	if strings.HasPrefix(l.Proto, "udp") {
		return "", "not spoken to (udp)"
	}
	host := l.Addr
	switch {
	case l.Loopback:
	case l.AllInterfaces && l.Proto == "tcp6":
		host = "::1"
	case l.AllInterfaces:
		host = "127.0.0.1"
	default:
		return "", "not spoken to: bound to " + l.Addr + " only, and the harness contacts nothing but loopback"
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return "", "not spoken to: " + host + " is not a loopback address"
	}
	return net.JoinHostPort(host, strconv.Itoa(l.Port)), ""
}

// Knock speaks HTTP to l once, over loopback in the network namespace of
// the process holding it, and says what answered.
func Knock(l Listening) Service {
	addr, why := knockAddr(l)
	if addr == "" {
		return Service{Why: why}
	}
	c, err := dialIn(l.PID, addr, knockWait)
	if err != nil {
		return Service{Why: "not reached: " + err.Error()}
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(knockWait))
	host := addr
	if _, err := fmt.Fprintf(c, "GET / HTTP/1.0\r\nHost: %s\r\nUser-Agent: sealmark\r\nAccept: */*\r\n\r\n", host); err != nil {
		return Service{Reached: true, Why: "it closed the connection before the request was written"}
	}
	buf := make([]byte, knockRead)
	n := 0
	for n < len(buf) {
		m, err := c.Read(buf[n:])
		n += m
		if err != nil || bytes.Contains(buf[:n], []byte("\r\n\r\n")) {
			break
		}
	}
	return service(buf[:n])
}

// service reads what a listener answered to GET /.
func service(b []byte) Service {
	s := Service{Reached: true}
	if !bytes.HasPrefix(b, []byte("HTTP/")) {
		if len(b) > 0 {
			s.Said = strconv.QuoteToASCII(string(b[:min(len(b), 32)]))
		}
		return s
	}
	s.HTTP = true
	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(b)))
	line, _ := r.ReadLine()
	if f := strings.Fields(line); len(f) >= 2 {
		s.Status, _ = strconv.Atoi(f[1])
	}
	h, _ := r.ReadMIMEHeader()
	s.Server = h.Get("Server")
	s.Open = s.Status != 401 && s.Status != 403 && s.Status != 407 && s.Status != 0
	return s
}
