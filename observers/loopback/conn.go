package loopback

import (
	"fmt"
	"github.com/sealmark/sealmark/observers/internal/ledger"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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
		"peer":        peer,
		"local":       c.LocalAddr().String(),
		"bytes":       strconv.Itoa(len(b)),
		"token_found": strconv.FormatBool(how == ledger.ByToken),
		"attributed":  how,
	}
	if full {
		data["truncated"] = "true"
	}
	var summary string
	if req != nil {
		data["method"] = clean(req.method, 64)
		data["target"] = clean(req.target, 1024)
		data["headers"] = clean(strings.Join(req.names, ","), 1024)
		if req.host != "" {
			data["host"] = clean(req.host, 256)
		}
		for key, v := range req.values {
			data[key] = clean(v, 256)
		}
		summary = fmt.Sprintf("%s %s from %s (%s)", data["method"], clean(req.target, 120), peer, because(how, "request"))
	} else {
		data["preview"] = clean(string(b[:min(len(b), previewLen)]), 4*previewLen)
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

// clean makes text from a client safe to print: it escapes control
// characters and invalid UTF-8 and cuts the result at about max bytes.
func clean(s string, max int) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if b.Len() >= max {
			b.WriteString("…")
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}
