// Package example is the notes server that `sealmark run --example` tests:
// a small MCP server over stdio (protocol 2025-11-25 and earlier) that
// keeps to the protocol and has one real flaw: its debug_info tool returns
// the server's environment, secrets included.
//
//	func main() {
//		example.Dispatch() // serves when started as `sealmark __sealmark-example`
//		// ... the program's own work
//	}
//
// It is the only server the sealmark binary ships; the flawed servers of
// Sealmark's own tests (internal/fixture) are built into test binaries
// only.
package example

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/sealmark/sealmark/internal/mcpwire"
)

// Verb is the first argument that makes a program calling Dispatch serve
// the example instead of doing its own work.
const Verb = "__sealmark-example"

// Name is the server name the example gives in initialize.
const Name = "example-notes"

// versions are the protocol versions the example speaks, oldest first.
var versions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// Dispatch serves the example on stdin and stdout and exits when the
// program was started with Verb as its first argument; otherwise it
// returns at once.
func Dispatch() {
	if len(os.Args) > 1 && os.Args[1] == Verb {
		Serve(os.Stdin, os.Stdout)
		os.Exit(0)
	}
}

// Serve answers the MCP requests read from in on out until in ends.
func Serve(in io.Reader, out io.Writer) {
	s := &server{out: out, notes: map[string]string{"groceries": "milk, eggs", "todo": "write tests"}}
	lines := mcpwire.NewLineReader(in)
	for {
		line, tooLong, err := lines.Next()
		if err != nil {
			return
		}
		if tooLong {
			s.send(mcpwire.ErrorResponse(nil, mcpwire.CodeParseError, "Parse error: line too long"))
			continue
		}
		req, reject := mcpwire.Decode(line)
		switch {
		case reject != nil:
			s.send(reject)
		case req != nil && req.ID != nil:
			s.send(s.handle(req))
		}
	}
}

type server struct {
	out   io.Writer
	mu    sync.Mutex
	notes map[string]string
}

func (s *server) handle(req *mcpwire.Request) *mcpwire.Response {
	switch req.Method {
	case "initialize":
		return result(req, s.initialize(req.Params))
	case "ping":
		return result(req, struct{}{})
	case "tools/list":
		var p struct {
			Cursor *string `json:"cursor"`
		}
		if req.Params != nil {
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return mcpwire.ErrorResponse(req.ID, mcpwire.CodeInvalidParams, "Invalid params: "+err.Error())
			}
		}
		if p.Cursor != nil && *p.Cursor != "" { // one page: no cursor is valid
			return mcpwire.ErrorResponse(req.ID, mcpwire.CodeInvalidParams, "Invalid params: invalid cursor")
		}
		return result(req, map[string]any{"tools": tools})
	case "tools/call":
		return s.call(req)
	}
	return mcpwire.ErrorResponse(req.ID, mcpwire.CodeMethodNotFound, "Method not found: "+req.Method)
}

func (s *server) initialize(params json.RawMessage) map[string]any {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p) // anything unreadable gets the latest version
	version := versions[len(versions)-1]
	if slices.Contains(versions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": map[string]any{}},
		"serverInfo":      map[string]string{"name": Name, "version": "1.0.0"},
	}
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema map[string]any  `json:"inputSchema"`
	Annotations map[string]bool `json:"annotations"`
}

func schema(required []string, props ...string) map[string]any {
	p := map[string]any{}
	for _, name := range props {
		p[name] = map[string]any{"type": "string"}
	}
	s := map[string]any{"type": "object", "properties": p}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

var tools = []tool{
	{"read_note", "Read one note by name.", schema([]string{"name"}, "name"), map[string]bool{"readOnlyHint": true}},
	{"list_notes", "List the names of all notes.", schema(nil), map[string]bool{"readOnlyHint": true}},
	{"add_note", "Add a note with a title and an optional body.", schema([]string{"title"}, "title", "body"),
		map[string]bool{"readOnlyHint": false, "destructiveHint": false}},
	// The flaw: a debugging aid left in, which hands every environment
	// variable, API keys included, to whoever calls it.
	{"debug_info", "Show debugging information about the server process.", schema(nil), map[string]bool{"readOnlyHint": true}},
}

// call answers tools/call: a protocol error for an unknown tool or
// unreadable arguments, an isError result for arguments the tool rejects.
func (s *server) call(req *mcpwire.Request) *mcpwire.Response {
	var p struct {
		Name      *string                    `json:"name"`
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil || p.Name == nil {
		return mcpwire.ErrorResponse(req.ID, mcpwire.CodeInvalidParams, "Invalid params: a tool name and an arguments object are required")
	}
	arg := func(name string) (string, bool) {
		var v string
		raw, ok := p.Arguments[name]
		return v, ok && json.Unmarshal(raw, &v) == nil
	}
	switch *p.Name {
	case "read_note":
		name, ok := arg("name")
		if !ok {
			return result(req, text("name: a string is required", true))
		}
		s.mu.Lock()
		body, found := s.notes[name]
		s.mu.Unlock()
		if !found {
			return result(req, text("no note named "+name, true))
		}
		return result(req, text(body, false))
	case "list_notes":
		s.mu.Lock()
		names := make([]string, 0, len(s.notes))
		for n := range s.notes {
			names = append(names, n)
		}
		s.mu.Unlock()
		slices.Sort(names)
		return result(req, text("notes: "+strings.Join(names, ", "), false))
	case "add_note":
		title, ok := arg("title")
		body, bodyOK := arg("body")
		if _, given := p.Arguments["body"]; !ok || (given && !bodyOK) {
			return result(req, text("title: a string is required; body: a string when given", true))
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.notes) >= 100 {
			return result(req, text("too many notes", true))
		}
		s.notes[title] = body
		return result(req, text("added "+title, false))
	case "debug_info":
		env := os.Environ()
		slices.Sort(env)
		return result(req, text(strings.Join(env, "\n"), false))
	}
	return mcpwire.ErrorResponse(req.ID, mcpwire.CodeInvalidParams, "unknown tool: "+*p.Name)
}

func text(s string, isError bool) map[string]any {
	return map[string]any{"content": []map[string]string{{"type": "text", "text": s}}, "isError": isError}
}

func result(req *mcpwire.Request, v any) *mcpwire.Response {
	return &mcpwire.Response{ID: req.ID, Result: v}
}

func (s *server) send(r *mcpwire.Response) {
	r.JSONRPC = "2.0"
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(r) == nil {
		s.mu.Lock()
		_, _ = s.out.Write(b.Bytes())
		s.mu.Unlock()
	}
}
