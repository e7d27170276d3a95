package loopback

import (
	"bytes"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
)

// valueKeys are the only headers whose values a record keeps, and the Data
// key each goes under. Any other value may be a credential: the record names
// the header and keeps nothing else.
var valueKeys = map[string]string{
	"User-Agent":     "user_agent",
	"Content-Type":   "content_type",
	"Content-Length": "content_length",
}

// request is what the listener keeps of an HTTP/1.x request head.
type request struct {
	method, target, host string
	names                []string          // canonical header names, sorted, once each
	values               map[string]string // Data key -> value, for valueKeys only
	contentLength        int               // -1 when absent or invalid
	chunked              bool
	complete             bool // the head ended with its blank line
}

// parseRequest parses b as the start of an HTTP/1.x request. It returns nil
// when the first line is missing or is not an HTTP/1.x request line. A head
// cut short keeps the header lines that arrived whole.
func parseRequest(b []byte) *request {
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return nil
	}
	method, target, ok := requestLine(b[:nl])
	if !ok {
		return nil
	}
	r := &request{method: method, target: target, values: map[string]string{}, contentLength: -1}
	rest := b[nl+1:]
	seen := map[string]bool{}
	for {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			break // a partial line: not kept
		}
		line := bytes.TrimSuffix(rest[:nl], []byte("\r"))
		rest = rest[nl+1:]
		if len(line) == 0 {
			r.complete = true
			break
		}
		r.header(line, seen)
	}
	slices.Sort(r.names)
	return r
}

// header takes one header line in.
func (r *request) header(line []byte, seen map[string]bool) {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 || !isToken(line[:colon]) {
		return // a folded line or not a header: nothing to name
	}
	name := textproto.CanonicalMIMEHeaderKey(string(line[:colon]))
	value := strings.Trim(string(line[colon+1:]), " \t")
	if !seen[name] {
		seen[name] = true
		r.names = append(r.names, name)
	}
	switch name {
	case "Host":
		r.host = value
	case "Content-Length":
		if n, err := strconv.Atoi(value); err == nil && n >= 0 {
			r.contentLength = n
		}
	case "Transfer-Encoding":
		r.chunked = strings.Contains(strings.ToLower(value), "chunked")
	}
	if key, ok := valueKeys[name]; ok {
		r.values[key] = value
	}
}

// done reports whether b, which parses as r, holds the whole request: the
// head and, when announced, the body. The caller stops anyway at its bound.
func (r *request) done(b []byte) bool {
	if !r.complete {
		return false
	}
	body := b[headEnd(b):]
	switch {
	case r.chunked:
		return bytes.HasSuffix(body, []byte("0\r\n\r\n")) || bytes.HasSuffix(body, []byte("0\n\n"))
	case r.contentLength >= 0:
		return len(body) >= r.contentLength
	}
	return true
}

// headEnd returns the offset just past the blank line ending the head, or
// len(b) when there is none.
func headEnd(b []byte) int {
	for i := 0; i < len(b); i++ {
		if b[i] != '\n' {
			continue
		}
		switch {
		case i+1 < len(b) && b[i+1] == '\n':
			return i + 2
		case i+2 < len(b) && b[i+1] == '\r' && b[i+2] == '\n':
			return i + 3
		}
	}
	return len(b)
}

// requestLine splits "METHOD target HTTP/1.x".
func requestLine(line []byte) (method, target string, ok bool) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	parts := bytes.Split(line, []byte(" "))
	if len(parts) != 3 || !isToken(parts[0]) || len(parts[1]) == 0 {
		return "", "", false
	}
	if v := string(parts[2]); v != "HTTP/1.0" && v != "HTTP/1.1" {
		return "", "", false
	}
	for _, c := range parts[1] {
		if c < 0x21 || c == 0x7f {
			return "", "", false
		}
	}
	return string(parts[0]), string(parts[1]), true
}

// isToken reports whether b is an HTTP token (RFC 9110 tchar+).
func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !isTchar(c) {
			return false
		}
	}
	return true
}

func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
