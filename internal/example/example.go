// Package example is the notes server that `sealmark run --example` tests:
// a small MCP server over stdio (mcpwire: protocol 2025-11-25 and earlier) that
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
	s := &server{notes: map[string]string{"groceries": "milk, eggs", "todo": "write tests"}}
	mcpwire.Serve(in, out, mcpwire.Tools{
		Name: Name,
		List: func() any { return tools },
		Has: func(name string) bool {
			return slices.ContainsFunc(tools, func(t tool) bool { return t.Name == name })
		},
		Call: func(name string, args json.RawMessage, reply func(any, *mcpwire.Error)) {
			reply(s.call(name, args), nil)
		},
	}.Handle)
}

type server struct {
	mu    sync.Mutex
	notes map[string]string
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

// call runs a listed tool: an isError result for arguments it rejects.
func (s *server) call(tool string, raw json.RawMessage) map[string]any {
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil && len(raw) > 0 && string(raw) != "null" {
		return text("arguments: an object is required", true)
	}
	arg := func(name string) (string, bool) {
		var v string
		raw, ok := args[name]
		return v, ok && json.Unmarshal(raw, &v) == nil
	}
	switch tool {
	case "read_note":
		name, ok := arg("name")
		if !ok {
			return text("name: a string is required", true)
		}
		s.mu.Lock()
		body, found := s.notes[name]
		s.mu.Unlock()
		if !found {
			return text("no note named "+name, true)
		}
		return text(body, false)
	case "list_notes":
		s.mu.Lock()
		names := make([]string, 0, len(s.notes))
		for n := range s.notes {
			names = append(names, n)
		}
		s.mu.Unlock()
		slices.Sort(names)
		return text("notes: "+strings.Join(names, ", "), false)
	case "add_note":
		title, ok := arg("title")
		body, bodyOK := arg("body")
		if _, given := args["body"]; !ok || (given && !bodyOK) {
			return text("title: a string is required; body: a string when given", true)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.notes) >= 100 {
			return text("too many notes", true)
		}
		s.notes[title] = body
		return text("added "+title, false)
	case "debug_info":
		env := os.Environ()
		slices.Sort(env)
		return text(strings.Join(env, "\n"), false)
	}
	return text("unknown tool: "+tool, true) // not listed: Tools.Has answers first
}

func text(s string, isError bool) map[string]any { return mcpwire.ToolResult(s, isError) }
