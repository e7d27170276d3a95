package loopback

import (
	"fmt"
	"github.com/sealmark/sealmark/observers/internal/ledger"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/sealmark/sealmark/observers"
)

// Body is what the listener answers every HTTP request with.
const Body = "sealmark loopback listener\n"

var answer = "HTTP/1.1 200 OK\r\n" +
	"Content-Type: text/plain\r\n" +
	"Content-Length: " + strconv.Itoa(len(Body)) + "\r\n" +
	"Connection: close\r\n\r\n"

// How much of a connection's bytes a record shows, when they are not HTTP.
const previewLen = 64

// serve reads what c sends (bounded in bytes and time), records it, answers
// an HTTP request with the fixed body, and closes c. It never connects
// anywhere: the listener only records.
func (l *Listener) serve(c net.Conn, at time.Time, open string) {
	defer func() {
		l.mu.Lock()
		delete(l.active, c)
		l.mu.Unlock()
		c.Close()
		<-l.slots
		l.serving.Done()
	}()
	b, full := readRequest(c, l.lim.read)
	req := parseRequest(b)
	tok, how := l.book.Attribute(b, open)
	// Recorded before answering, so a client holding the answer knows the
	// record is there.
	l.book.Add(record(c, at, b, full, req, tok, how))
	if req != nil {
		l.answer(c, req)
	}
}

// readRequest reads from c until an HTTP request is whole, the client
// stops, the read deadline passes or max bytes arrived (full).
func readRequest(c net.Conn, max int) (b []byte, full bool) {
	buf := make([]byte, max)
	n := 0
	for n < max {
		k, err := c.Read(buf[n:])
		n += k
		if k > 0 {
			if req := parseRequest(buf[:n]); req != nil && req.done(buf[:n]) {
				break
			}
		}
		if err != nil {
			break
		}
	}
	return buf[:n], n == max
}

// answer writes the fixed response, then reads and drops what the client
// still sends for a short while, so closing does not reset the connection
// before the client has read the answer.
func (l *Listener) answer(c net.Conn, req *request) {
	c.SetWriteDeadline(time.Now().Add(l.lim.write))
	msg := answer
	if req.method != "HEAD" {
		msg += Body
	}
	if _, err := io.WriteString(c, msg); err != nil {
		return
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	c.SetReadDeadline(time.Now().Add(l.lim.grace))
	io.CopyN(io.Discard, c, 64<<10)
}

// record describes one connection. Header values are kept only for
// valueKeys: any other may be a credential.
func record(c net.Conn, at time.Time, b []byte, full bool, req *request, tok, how string) observers.Record {
	peer := c.RemoteAddr().String()
	data := map[string]string{
		observers.KeyPeer:       peer,
		observers.KeyLocal:      c.LocalAddr().String(),
		observers.KeyBytes:      strconv.Itoa(len(b)),
		observers.KeyTokenFound: strconv.FormatBool(how == ledger.ByToken),
		observers.KeyAttributed: how,
	}
	if full {
		data[observers.KeyTruncated] = "true"
	}
	var summary string
	if req != nil {
		data[observers.KeyMethod] = ledger.Clean(req.method, 64)
		data[observers.KeyTarget] = ledger.Clean(req.target, 1024)
		data[observers.KeyHeaders] = ledger.Clean(strings.Join(req.names, ","), 1024)
		if req.host != "" {
			data[observers.KeyHost] = ledger.Clean(req.host, 256)
		}
		for key, v := range req.values {
			data[key] = ledger.Clean(v, 256)
		}
		summary = fmt.Sprintf("%s %s from %s (%s)", data[observers.KeyMethod], ledger.Clean(req.target, 120), peer, because(how, "request"))
	} else {
		data[observers.KeyPreview] = ledger.Clean(string(b[:min(len(b), previewLen)]), 4*previewLen)
		summary = fmt.Sprintf("%d bytes, not HTTP, from %s (%s)", len(b), peer, because(how, "data"))
	}
	return observers.Record{
		Kind:     observers.KindConnection,
		Observer: "loopback",
		Time:     at,
		Token:    tok,
		Summary:  summary,
		Data:     data,
	}
}

// because says in a summary how the record was attributed.
func because(how, where string) string {
	switch how {
	case ledger.ByToken:
		return "token in " + where
	case ledger.ByTime:
		return "no token; during the open probe"
	}
	return "no token; no probe open"
}
