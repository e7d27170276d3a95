package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/internal/netguard"
	"github.com/sealmark/sealmark/packs"
)

// ErrNotStdio is what stdio-only operations return on an HTTP session.
var ErrNotStdio = errors.New("an HTTP server has no stdin or stdout")

// Bounds on what an HTTP session keeps as evidence.
const (
	maxHTTPFrames     = 4096
	maxHTTPFrameBytes = 32 << 20
)

// HTTP is one MCP session with an HTTP server: a fresh session per pack on
// the one server, over streamable HTTP or, when the URL does not speak it,
// the legacy HTTP+SSE transport (see sse.go). Every message the server sent
// is kept as a frame (bounded), so the same secret-echo and wire checks
// apply.
type HTTP struct {
	url     string
	headers map[string]string
	client  *http.Client
	timeout time.Duration
	tr      transport.HTTPConnection // *transport.StreamableHTTP, or *transport.SSE after the fallback
	sse     bool                     // the legacy HTTP+SSE transport is in use
	proc    *launch.Process          // the --start process, or nil for a server the harness did not start
	seq     atomic.Int64

	mu             sync.Mutex
	described      map[string]string
	pending        map[string]context.CancelCauseFunc // JSON id → how to fail its request at once
	broken         error                              // why a body of no call failed (bound.go)
	brokenCh       chan struct{}                      // closed when broken is set
	frames         []packs.Frame
	frameBytes     int
	framesLost     int64
	serverRequests []string
	modern         string // the modern protocol version in use, "" for legacy
	negotiation    Negotiation
	closeOnce      sync.Once
	lists          toolLists   // lists.go
	notes          noteCounter // notes.go
}

var _ packs.Server = (*HTTP)(nil)

// OpenHTTP starts a session with the server at url (a loopback URL) with
// the configured headers. proc is the process the harness started for it,
// or nil.
func OpenHTTP(url string, headers map[string]string, proc *launch.Process, timeout time.Duration) (*HTTP, error) {
	if err := netguard.CheckURL(url); err != nil {
		return nil, err
	}
	client := netguard.Client(timeout)
	h := &HTTP{url: url, headers: headers, proc: proc, client: client, timeout: timeout, described: map[string]string{}, pending: map[string]context.CancelCauseFunc{}, brokenCh: make(chan struct{})}
	client.Transport = modern404{bounded{base: client.Transport, broken: h.streamBroke}} // bound.go
	tr, err := transport.NewStreamableHTTP(url,
		transport.WithHTTPBasicClient(h.client),
		transport.WithHTTPHeaders(headers),
	)
	if err != nil {
		return nil, err
	}
	h.tr = tr
	tr.SetNotificationHandler(h.notified)
	tr.SetRequestHandler(h.decline)
	if err := tr.Start(context.Background()); err != nil {
		return nil, err
	}
	return h, nil
}

// notified records a notification the server sent.
func (h *HTTP) notified(n mcp.JSONRPCNotification) {
	h.notes.see(n.Method, time.Now())
	if b, err := json.Marshal(n); err == nil {
		h.record(b)
	}
}

func (h *HTTP) decline(_ context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return declined(&h.mu, &h.serverRequests, req), nil
}

// record keeps one message the server sent, within the bounds.
func (h *HTTP) record(b []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.frames) >= maxHTTPFrames || h.frameBytes+len(b) > maxHTTPFrameBytes {
		h.framesLost += int64(len(b))
		return
	}
	h.frames = append(h.frames, packs.Frame{Seq: len(h.frames), Time: time.Now(), Kind: "json", Data: b, Size: int64(len(b))})
	h.frameBytes += len(b)
}

// Request sends one request with a fresh harness id.
func (h *HTTP) Request(ctx context.Context, method string, params any) (*packs.Response, error) {
	id := "sm-" + strconv.FormatInt(h.seq.Add(1), 10)
	key := strconv.Quote(id)
	what := describe(method, params)
	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)
	c := &call{what: what, fail: fail}
	ctx = context.WithValue(ctx, callKey{}, c)
	h.mu.Lock()
	modern, tr := h.modern, h.tr
	broken := h.broken
	if !h.sse {
		broken = nil
	}
	h.described[key] = what
	if broken == nil {
		h.pending[key] = fail
	}
	h.mu.Unlock()
	if broken != nil {
		return nil, fmt.Errorf("%s: %w", what, broken) // no answer can come on the closed stream
	}
	defer func() {
		h.mu.Lock()
		delete(h.pending, key)
		h.mu.Unlock()
	}()
	req := transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Method: method, Params: params}
	switch {
	case modern != "":
		req.Params = withMeta(params, modern)
		req.Header = modernHeaders(modern, method, params)
	case method == "server/discover":
		req.Header = modernHeaders(ModernVersion, method, params)
	}
	start := time.Now()
	resp, err := tr.SendRequest(ctx, req)
	if err != nil {
		var large *packs.TooLargeError
		if errors.As(context.Cause(ctx), &large) {
			if large.Request == "" {
				return nil, fmt.Errorf("%s: %w", what, large) // the stream that broke
			}
			return nil, large // it names the request
		}
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil || pastDeadline(ctx) {
			return nil, fmt.Errorf("%s: %w", what, packs.ErrNoAnswer)
		}
		// The transport failed without a JSON-RPC answer (an HTTP status
		// with no JSON body, a refused connection, an event stream that
		// ended first, which the client calls "unexpected nil response"):
		// no timeout.
		if why := c.noAnswer(); why != "" {
			took := time.Since(start).Round(time.Millisecond)
			if err.Error() == "unexpected nil response" { // the client's words for it, which say nothing
				return nil, fmt.Errorf("%s: %w after %s: %s", what, packs.ErrTransport, took, why)
			}
			return nil, fmt.Errorf("%s: %w after %s: %s: %w", what, packs.ErrTransport, took, why, err)
		}
		return nil, fmt.Errorf("%s: %w after %s: %w", what, packs.ErrTransport, time.Since(start).Round(time.Millisecond), err)
	}
	if b, err := json.Marshal(resp); err == nil {
		h.record(b)
	}
	out := toResponse(resp)
	h.lists.see(method, params, out)
	if method == "initialize" && out.Error == nil {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(out.Result, &r) == nil && r.ProtocolVersion != "" {
			tr.SetProtocolVersion(r.ProtocolVersion)
		}
	}
	return out, nil
}

// Notify sends a notification.
func (h *HTTP) Notify(ctx context.Context, method string, params any) error {
	n := mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: method}}
	if m, ok := params.(map[string]any); ok {
		n.Params.AdditionalFields = m
	}
	return h.transport().SendNotification(ctx, n)
}

// transport is the transport in use.
func (h *HTTP) transport() transport.HTTPConnection {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tr
}

// Initialize finds the server's era and completes its handshake (see
// negotiate); a URL that refuses the initialize POST with a 4xx gets the
// legacy HTTP+SSE transport instead, and the legacy handshake over it.
func (h *HTTP) Initialize(ctx context.Context, version string) (packs.Init, error) {
	in, neg, err := negotiate(ctx, h, h.setModern, version)
	h.mu.Lock()
	h.negotiation = neg
	h.mu.Unlock()
	if !errors.Is(err, transport.ErrLegacySSEServer) {
		return in, err
	}
	if serr := h.fallbackSSE(ctx); serr != nil {
		return in, fmt.Errorf("%v; the legacy HTTP+SSE transport failed too: %v", err, serr)
	}
	return initialize(ctx, h, version)
}

// InitializeAs completes the handshake of an era already known (see
// Session.InitializeAs).
func (h *HTTP) InitializeAs(ctx context.Context, era, version string) (packs.Init, error) {
	return initializeAs(ctx, h, h.setModern, era, version)
}

// Negotiated says how Initialize found the server's era.
func (h *HTTP) Negotiated() Negotiation {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.negotiation
}

// setModern switches the session to the modern era: the protocol version
// header on every request, no session.
func (h *HTTP) setModern(version string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.modern = version
	h.tr.SetProtocolVersion(version)
}

// ListTools walks tools/list.
func (h *HTTP) ListTools(ctx context.Context, maxPages int) ([]packs.Tool, error) {
	return listTools(ctx, h, maxPages)
}

// ToolLists returns the tools/list walks of this session (Session.ToolLists).
func (h *HTTP) ToolLists() []packs.ToolList { return h.lists.copyOut() }

// Notifications counts the notifications the server sent in this session
// (Session.Notifications).
func (h *HTTP) Notifications() []packs.NoteCount { return h.notes.counts() }

// WriteRaw is stdio-only.
func (h *HTTP) WriteRaw([]byte) error { return ErrNotStdio }

// Frames returns the messages the server sent in this session.
func (h *HTTP) Frames(from int) []packs.Frame {
	h.mu.Lock()
	defer h.mu.Unlock()
	if from < 0 || from >= len(h.frames) {
		return nil
	}
	return append([]packs.Frame(nil), h.frames[from:]...)
}

// FramesLost is how many bytes of messages were not kept.
func (h *HTTP) FramesLost() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.framesLost
}

// Describe names the harness request a frame answers.
func (h *HTTP) Describe(f packs.Frame) string { return describeFrame(&h.mu, h.described, f) }

// Log is the started process's output (stderr and stdout lines), or
// nothing for a server the harness did not start.
func (h *HTTP) Log() []byte {
	if h.proc == nil {
		return nil
	}
	out := h.proc.Log().Bytes()
	for _, f := range h.proc.Frames(0) {
		out = append(append(out, f.Data...), '\n')
	}
	return out
}

// LogDrained reports whether everything the started process wrote so far
// (stderr, and the lines of its stdout) is in Log; true for a server the
// harness did not start, whose log is always empty.
func (h *HTTP) LogDrained() bool {
	return h.proc == nil || h.proc.LogDrained() && h.proc.OutputDrained()
}

// CloseStdin is stdio-only.
func (h *HTTP) CloseStdin() error { return ErrNotStdio }

// Terminate is stdio-only: a started HTTP server is stopped with its run.
func (h *HTTP) Terminate(time.Duration) []string { return nil }

// WaitExit waits for the started process, if any.
func (h *HTTP) WaitExit(d time.Duration) bool { return h.proc != nil && h.proc.WaitExit(d) }

// Alive reports whether the started process runs (true when the harness
// started none: it cannot know).
func (h *HTTP) Alive() bool {
	if h.proc == nil {
		return true
	}
	select {
	case <-h.proc.Done():
		return false
	default:
		return true
	}
}

// ExitStatus is the started process's exit status, or "".
func (h *HTTP) ExitStatus() string {
	if h.proc == nil {
		return ""
	}
	return h.proc.ExitStatus()
}

// Transport is "http" (streamable HTTP) or "http-sse" (the legacy
// HTTP+SSE transport).
func (h *HTTP) Transport() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sse {
		return "http-sse"
	}
	return "http"
}

// ServerRequests lists the methods the server asked the harness for.
func (h *HTTP) ServerRequests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.serverRequests...)
}

// URL is the server's MCP endpoint.
func (h *HTTP) URL() string { return h.url }

// Headers are the configured headers (a copy).
func (h *HTTP) Headers() map[string]string {
	out := make(map[string]string, len(h.headers))
	for k, v := range h.headers {
		out[k] = v
	}
	return out
}

// SessionID is the streamable HTTP session id the server assigned, if any.
func (h *HTTP) SessionID() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sse {
		return ""
	}
	return h.tr.GetSessionId()
}

// Close ends the session: a DELETE with the configured headers (mcp-go's
// own leaves them out), then the transport.
func (h *HTTP) Close() {
	h.closeOnce.Do(func() {
		if id := h.SessionID(); id != "" && Era(h.modernVersion()) != EraModern {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if req, err := http.NewRequestWithContext(ctx, http.MethodDelete, h.url, nil); err == nil {
				for k, v := range h.headers {
					req.Header.Set(k, v)
				}
				req.Header.Set("Mcp-Session-Id", id)
				if resp, err := h.client.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}
		_ = h.transport().Close()
	})
}

// pastDeadline reports whether ctx's deadline has passed. The HTTP
// client's own bound is the call timeout too, and may cut an event stream
// that never answered before ctx's timer has run (a loaded machine): the
// call still got no answer within its deadline.
func pastDeadline(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}
