package mcpwire

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"sync"
)

// Versions are the protocol versions of the legacy era, oldest first: what
// the example server and the fixture servers speak.
var Versions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// Handler answers one request through reply, at once or later from another
// goroutine (a long tool call), exactly once: a result, or an error.
type Handler func(req *Request, reply func(result any, err *Error))

// Streamer is a result that writes its own response line (a tool output
// too large to hold twice): Serve calls StreamResponse instead of encoding
// it.
type Streamer interface {
	StreamResponse(w io.Writer, id json.RawMessage)
}

// Serve answers the requests read from in on out, one JSON-RPC message per
// line, until in ends: a line that is not JSON gets -32700, a JSON value
// that is not a request -32600, a request goes to handle; notifications
// and responses sent to the server are dropped. Replies are written whole,
// one at a time. Serve returns as soon as in ends, without waiting for
// replies still to come: a server exits when its stdin closes, whatever
// its calls are doing (a reply written later goes nowhere).
func Serve(in io.Reader, out io.Writer, handle Handler) {
	var mu sync.Mutex // one response at a time on out
	send := func(r *Response) {
		r.JSONRPC = "2.0"
		mu.Lock()
		defer mu.Unlock()
		if s, ok := r.Result.(Streamer); ok && r.Error == nil {
			s.StreamResponse(out, r.ID)
			return
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // ids and texts byte for byte
		if enc.Encode(r) == nil {
			_, _ = out.Write(b.Bytes())
		}
	}
	lines := NewLineReader(in)
	for {
		line, tooLong, err := lines.Next()
		if err != nil {
			break
		}
		if tooLong {
			send(ErrorResponse(nil, CodeParseError, "Parse error: line too long"))
			continue
		}
		req, reject := Decode(line)
		switch {
		case reject != nil:
			send(reject)
		case req != nil && req.ID != nil:
			var once sync.Once
			handle(req, func(result any, e *Error) {
				once.Do(func() {
					if e != nil {
						send(&Response{ID: req.ID, Error: e})
					} else {
						send(&Response{ID: req.ID, Result: result})
					}
				})
			})
		}
	}
}

// Tools handles the methods of a small stdio MCP server with tools only:
// initialize (Versions; an unknown version gets the latest), ping,
// tools/list (one page: any cursor is -32602) and tools/call; anything
// else is -32601.
type Tools struct {
	Name string // serverInfo.name
	// List returns the tools/list tools, as sent.
	List func() any
	// Has reports whether a tool of that name is listed; a tools/call of
	// any other is -32602. Nil lets Call decide.
	Has func(name string) bool
	// Call answers a tools/call, through reply as Handler does: a
	// ToolResult, or a protocol error.
	Call func(name string, args json.RawMessage, reply func(result any, err *Error))
}

// Handle is Tools as a Handler.
func (t Tools) Handle(req *Request, reply func(any, *Error)) {
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p) // anything unreadable gets the latest
		v := Versions[len(Versions)-1]
		if slices.Contains(Versions, p.ProtocolVersion) {
			v = p.ProtocolVersion
		}
		reply(map[string]any{"protocolVersion": v, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": t.Name, "version": "1.0.0"}}, nil)
	case "ping":
		reply(map[string]any{}, nil)
	case "tools/list":
		var p struct {
			Cursor *string `json:"cursor"`
		}
		if req.Params != nil {
			if err := json.Unmarshal(req.Params, &p); err != nil {
				reply(nil, &Error{Code: CodeInvalidParams, Message: "Invalid params: " + err.Error()})
				return
			}
		}
		if p.Cursor != nil && *p.Cursor != "" { // one page: no cursor is valid
			reply(nil, &Error{Code: CodeInvalidParams, Message: "Invalid params: invalid cursor"})
			return
		}
		reply(map[string]any{"tools": t.List()}, nil)
	case "tools/call":
		var p struct {
			Name      *string         `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal(req.Params, &p) != nil || p.Name == nil {
			reply(nil, &Error{Code: CodeInvalidParams, Message: "Invalid params: a tool name is required"})
			return
		}
		if t.Has != nil && !t.Has(*p.Name) {
			reply(nil, &Error{Code: CodeInvalidParams, Message: "unknown tool: " + *p.Name})
			return
		}
		t.Call(*p.Name, p.Arguments, reply)
	default:
		reply(nil, &Error{Code: CodeMethodNotFound, Message: "Method not found: " + req.Method})
	}
}

// ToolResult is a tools/call result with one text content.
func ToolResult(text string, isError bool) map[string]any {
	r := map[string]any{"content": []map[string]any{{"type": "text", "text": text}}}
	if isError {
		r["isError"] = true
	}
	return r
}
