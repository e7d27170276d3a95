package session

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"sync"

	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/packs"
)

// The HTTP transports (mcp-go's) read an event stream line by line and a
// JSON body whole, with no bound of their own: a server could send one
// endless line and the harness would buffer it until memory ran out. Every
// response body an HTTP session reads goes through a bound instead: an
// event stream fails once one line, or the data of one event, runs past
// the message limit (the stdio framer's launch.DefaultMaxMessage); any
// other body (a JSON answer, an error page) once it runs past it whole.
// The request whose body failed fails at once with a packs.TooLargeError
// that names it: no timeout waited, no crash implied.

// maxHTTPMessage is the message limit of an HTTP session.
var maxHTTPMessage int64 = launch.DefaultMaxMessage

// fieldRoom is what an event-stream line may hold beyond a message of the
// limit: its field name ("data:"), a space and a "\r".
const fieldRoom = 16

// callKey is the context key of the call a request belongs to.
type callKey struct{}

// call is one harness request in flight on an HTTP session: what it is
// and how to fail it at once.
type call struct {
	what string
	fail context.CancelCauseFunc

	mu    sync.Mutex
	ended error // how the last event stream of its answer ended (io.EOF: closed)
}

// streamEnded records how an event stream carrying the call's answer ended.
func (c *call) streamEnded(err error) {
	c.mu.Lock()
	c.ended = err
	c.mu.Unlock()
}

// noAnswer says why a call whose event stream ended carried no answer,
// "" when no stream of it ended.
func (c *call) noAnswer() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.ended == nil:
		return ""
	case errors.Is(c.ended, io.EOF):
		return "the server's event stream ended without an answer (the server closed it)"
	case errors.Is(c.ended, io.ErrUnexpectedEOF):
		return "the server's event stream ended without an answer (unexpected EOF: the body broke off before its end)"
	}
	return "the server's event stream ended without an answer (" + c.ended.Error() + ")"
}

// bounded is the RoundTripper that bounds every response body.
type bounded struct {
	base http.RoundTripper
	// broken is told of a failed body that belongs to no call (the legacy
	// transport's event stream, which carries every answer).
	broken func(error)
}

func (b bounded) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	c, _ := req.Context().Value(callKey{}).(*call)
	stream := mt == "text/event-stream"
	resp.Body = &boundedBody{rc: resp.Body, stream: stream, limit: maxHTTPMessage, call: c, broken: b.broken}
	if stream {
		resp.Body = newJoinedBody(resp.Body) // see join.go
	}
	return resp, nil
}

// boundedBody fails a body past its bound, and tells who waits for it.
type boundedBody struct {
	rc     io.ReadCloser
	stream bool
	limit  int64
	call   *call
	broken func(error)

	once sync.Once
	err  error
	body int64   // bytes read so far (not a stream)
	line int64   // bytes of the current line (a stream)
	head [6]byte // the current line's first bytes, to tell a data line
	data int64   // bytes of the current event's data, as the client joins it (a stream)
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.rc.Read(p)
	if b.over(p[:n]) {
		b.fail()
		return 0, b.err
	}
	if err != nil && b.stream && b.call != nil {
		b.call.streamEnded(err)
	}
	return n, err
}

// over counts chunk and reports whether the body is past its bound.
func (b *boundedBody) over(chunk []byte) bool {
	if !b.stream {
		b.body += int64(len(chunk))
		return b.body > b.limit
	}
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		part := chunk
		if i >= 0 {
			part = chunk[:i]
		}
		if b.line < int64(len(b.head)) {
			copy(b.head[b.line:], part)
		}
		b.line += int64(len(part))
		if b.line > b.limit+fieldRoom {
			return true
		}
		if i < 0 {
			return false
		}
		if b.endLine() {
			return true
		}
		chunk = chunk[i+1:]
	}
	return false
}

// endLine counts a finished line into its event, and reports whether the
// event's data, the message the client joins from its data lines, is past
// the limit: a data line adds its value (after "data:" and one space, less
// a "\r") and the "\n" that joins it to the next; an empty line ends the
// event.
func (b *boundedBody) endLine() bool {
	n := b.line
	b.line = 0
	switch {
	case n == 0 || (n == 1 && b.head[0] == '\r'):
		b.data = 0
	case n >= 5 && string(b.head[:5]) == "data:":
		v := n - 5
		if n >= 6 && b.head[5] == ' ' {
			v--
		}
		b.data += v + 1
	}
	return b.data > b.limit+1
}

// fail ends the body with a TooLargeError, fails the call it answers at
// once (or tells the session its stream broke), and closes the body so the
// server's connection is dropped.
func (b *boundedBody) fail() {
	b.once.Do(func() {
		e := &packs.TooLargeError{Stream: b.stream, Limit: b.limit}
		if b.call != nil {
			e.Request = b.call.what
		}
		b.err = e
		if b.call != nil {
			b.call.fail(e)
		} else if b.broken != nil {
			b.broken(e)
		}
		_ = b.rc.Close()
	})
}

func (b *boundedBody) Close() error { return b.rc.Close() }

// streamBroke fails every pending request of the session with err, and
// any wait for the legacy transport's endpoint event: a body that belongs
// to no call is the legacy transport's event stream, which carries every
// answer, so none can come once it is closed.
func (h *HTTP) streamBroke(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.broken == nil {
		h.broken = err
		close(h.brokenCh)
	}
	if !h.sse {
		return // a streamable HTTP session's answers come on their own bodies
	}
	for _, fail := range h.pending {
		fail(err)
	}
}
