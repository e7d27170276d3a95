// Package session is the harness's MCP client for one server start: a strict,
// minimal client over mcp-go's stdio transport, fed only the valid JSON lines
// of the harness's own framer.
//
//	proc, _ := launch.Start(spec)
//	s := session.Open(proc)
//	defer s.Close()
//	init, err := s.Initialize(ctx, session.LegacyVersion)
//	tools, err := s.ListTools(ctx, 100)
//
// It declares no client capabilities (no roots, no sampling, no
// elicitation): every server-to-client request is recorded and answered with
// an error, so a verdict never comes from access the harness granted.
package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/packs"
)

// LegacyVersion is the legacy era's version (packs.LegacyVersion).
const LegacyVersion = packs.LegacyVersion

// KnownVersions are the protocol versions the specification has defined
// (packs.KnownVersions).
var KnownVersions = packs.KnownVersions

// ClientName and ClientVersion identify the harness in initialize.
var (
	ClientName    = "sealmark"
	ClientVersion = "dev"
)

// maxServerRequests bounds how many server-to-client requests are recorded.
const maxServerRequests = 256

// Session is one MCP session over one started process.
type Session struct {
	proc *launch.Process
	tr   *transport.Stdio
	seq  atomic.Int64

	mu             sync.Mutex
	described      map[string]string                  // JSON id → "tools/call name"
	pending        map[string]context.CancelCauseFunc // JSON id → how to fail its request at once
	serverRequests []string
	modern         string // the modern protocol version in use, "" for legacy
	negotiation    Negotiation
	closeOnce      sync.Once
	lists          toolLists   // lists.go
	notes          noteCounter // notes.go
}

var _ packs.Server = (*Session)(nil)

// Open wires a session to a started process. It never fails: a process
// that already died shows up as errors on the first request.
func Open(proc *launch.Process) *Session {
	s := &Session{proc: proc, described: map[string]string{}, pending: map[string]context.CancelCauseFunc{}}
	proc.OnCut(s.cut)
	s.tr = transport.NewIO(proc.Messages(), proc.Input(), io.NopCloser(strings.NewReader("")))
	s.tr.SetRequestHandler(s.decline)
	s.tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) { s.notes.see(n.Method, time.Now()) }) // frames keep the evidence
	_ = s.tr.Start(context.Background())
	return s
}

// decline answers every server-to-client request with an error: the harness
// declared no capability that would allow one.
func (s *Session) decline(_ context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return declined(&s.mu, &s.serverRequests, req), nil
}

// declined records a server-to-client request and answers it: ping with an
// empty result, anything else with -32601.
func declined(mu *sync.Mutex, seen *[]string, req transport.JSONRPCRequest) *transport.JSONRPCResponse {
	mu.Lock()
	if len(*seen) < maxServerRequests {
		*seen = append(*seen, req.Method)
	}
	mu.Unlock()
	if req.Method == "ping" {
		return transport.NewJSONRPCResultResponse(req.ID, json.RawMessage(`{}`))
	}
	return transport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND, "the sealmark harness declares no client capabilities", nil)
}

// toResponse turns the transport's response into a probe's.
func toResponse(resp *transport.JSONRPCResponse) *packs.Response {
	out := &packs.Response{Result: resp.Result}
	out.ID, _ = json.Marshal(resp.ID)
	if resp.Error != nil {
		out.Error = &packs.RPCError{Code: resp.Error.Code, Message: resp.Error.Message}
		if resp.Error.Data != nil {
			out.Error.Data, _ = json.Marshal(resp.Error.Data)
		}
	}
	return out
}

// describe names a request for messages and for Describe: the method, and
// the tool's name for tools/call.
func describe(method string, params any) string {
	if m, ok := params.(map[string]any); ok && method == "tools/call" {
		if name, ok := m["name"].(string); ok {
			return method + " " + name
		}
	}
	return method
}

// ServerRequests lists the methods of the requests the server sent to the harness.
func (s *Session) ServerRequests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.serverRequests...)
}

// Request sends one request with a fresh harness id ("sm-N").
func (s *Session) Request(ctx context.Context, method string, params any) (*packs.Response, error) {
	id := "sm-" + strconv.FormatInt(s.seq.Add(1), 10)
	key := strconv.Quote(id)
	what := describe(method, params)
	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)
	s.mu.Lock()
	s.described[key] = what
	s.pending[key] = fail
	modern := s.modern
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, key)
		s.mu.Unlock()
	}()
	if modern != "" {
		params = withMeta(params, modern)
	}
	resp, err := s.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Method: method, Params: params})
	if err != nil {
		var large *packs.TooLargeError
		if errors.As(context.Cause(ctx), &large) {
			return nil, large // it names the request already
		}
		var deep *packs.TooDeepError
		if errors.As(context.Cause(ctx), &deep) {
			return nil, deep // it names the request already
		}
		if errors.Is(err, transport.ErrTransportClosed) {
			return nil, fmt.Errorf("%s: %w", what, s.closedError())
		}
		if errors.Is(err, launch.ErrStdinClosed) {
			if st := s.proc.ExitStatus(); st != "" {
				return nil, fmt.Errorf("%s: %w: the server exited (%s)", what, packs.ErrClosed, st)
			}
			return nil, fmt.Errorf("%s: %w: the server's stdin is closed", what, packs.ErrClosed)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s: %w", what, packs.ErrNoAnswer)
		}
		if errors.Is(err, context.Canceled) {
			// Cancelled from outside (a signal): no wait for an exit.
			return nil, fmt.Errorf("%s: %w", what, packs.ErrInterrupted)
		}
		// A failed write (a broken pipe) usually means the server is exiting.
		if s.proc.WaitExit(closeWait) {
			return nil, fmt.Errorf("%s: %w", what, s.closedError())
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	out := toResponse(resp)
	s.lists.see(method, params, out)
	return out, nil
}

// Notifications counts the notifications the server sent in this
// session, per method, in the order the methods first came.
func (s *Session) Notifications() []packs.NoteCount { return s.notes.counts() }

// ToolLists returns the distinct tool lists the tools/list walks of this
// session gave, oldest first: the first, then each that differed from the
// one before (the latest when there were too many).
func (s *Session) ToolLists() []packs.ToolList { return s.lists.copyOut() }

// closedError says why the transport closed. A closed stdout usually means
// the process is exiting: wait a moment so that Alive and ExitStatus tell
// the truth to the probe that reads them next.
func (s *Session) closedError() error {
	s.proc.WaitExit(closeWait)
	if st := s.proc.ExitStatus(); st != "" {
		return fmt.Errorf("%w: the server exited (%s)", packs.ErrClosed, st)
	}
	return packs.ErrClosed
}

// closeWait bounds the wait for an exit after stdout closed.
const closeWait = 2 * time.Second

// Notify sends a notification.
func (s *Session) Notify(ctx context.Context, method string, params any) error {
	n := mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: method}}
	if m, ok := params.(map[string]any); ok {
		n.Params.AdditionalFields = m
	}
	return s.tr.SendNotification(ctx, n)
}

// WriteRaw writes bytes to stdin as they are.
func (s *Session) WriteRaw(b []byte) error { return s.proc.WriteRaw(b) }

// Frames returns the stdout frames from sequence number from.
func (s *Session) Frames(from int) []packs.Frame {
	fs := s.proc.Frames(from)
	out := make([]packs.Frame, len(fs))
	for i, f := range fs {
		out[i] = packs.Frame{Seq: f.Seq, Time: f.Time, Kind: string(f.Kind), Data: f.Data, Size: f.Size}
	}
	return out
}

// Describe names the harness request a frame answers.
func (s *Session) Describe(f packs.Frame) string { return describeFrame(&s.mu, s.described, f) }

// describeFrame names the harness request a JSON response frame answers,
// from the requests the session described by their JSON id.
// An oversize or too-deep frame names it too when its kept start holds the id.
func describeFrame(mu *sync.Mutex, described map[string]string, f packs.Frame) string {
	if f.Kind != "json" && f.Kind != "oversize" && f.Kind != "too-deep" {
		return ""
	}
	m := f.Head()
	if m == nil || m["method"] != nil || len(m["id"]) == 0 {
		return ""
	}
	mu.Lock()
	defer mu.Unlock()
	return described[string(m["id"])]
}

// Log returns the server log held so far.
func (s *Session) Log() []byte { return s.proc.Log().Bytes() }

// LogDrained reports whether everything the server wrote to stderr so far
// is in Log.
func (s *Session) LogDrained() bool { return s.proc.LogDrained() }

// CloseStdin closes the server's stdin.
func (s *Session) CloseStdin() error { return s.proc.CloseStdin() }

// WaitExit waits up to d for the server to exit by itself.
func (s *Session) WaitExit(d time.Duration) bool { return s.proc.WaitExit(d) }

// Terminate sends the server SIGTERM, then SIGKILL after grace.
func (s *Session) Terminate(grace time.Duration) []string { return s.proc.Terminate(grace) }

// Alive reports whether the server is running.
func (s *Session) Alive() bool {
	select {
	case <-s.proc.Done():
		return false
	default:
		return true
	}
}

// ExitStatus is how the server exited, or "" while it runs.
func (s *Session) ExitStatus() string { return s.proc.ExitStatus() }

// Transport is "stdio".
func (s *Session) Transport() string { return "stdio" }

// Close ends the session's transport. It does not stop the process: the
// caller stops it (launch.Process.Stop) after Close.
func (s *Session) Close() {
	s.closeOnce.Do(func() { _ = s.tr.Close() })
}
