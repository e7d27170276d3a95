package scan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/internal/config"
)

// MaxConfigBytes bounds what Load reads of one client configuration: 1 MiB.
const MaxConfigBytes = 1 << 20

// Entry is one server of an MCP client configuration, as written.
type Entry struct {
	// Name is the entry's key; unique within a scan (Load's caller
	// suffixes a repeated one).
	Name string
	// Source is the file it came from and Key the object that held it
	// ("mcpServers" or "servers"), for messages: "FILE: mcpServers.NAME".
	Source, Key string
	// Type is "stdio", "http" or "sse": as written, or stdio for an entry
	// with a command and http for one with a URL.
	Type    string
	Command string
	Args    []string
	// Env and Headers are in name order (a JSON object has none).
	Env     []config.KV
	URL     string
	Headers []config.KV
	// Inputs are the ${input:ID} placeholders (VS Code asks the user for
	// them) found in the entry's values; they are passed as written.
	Inputs []string
	// Disabled is true when the client has the entry switched off.
	Disabled bool
	// Invalid is why the entry cannot be read (a wrong type, no command
	// nor url, ...): it is reported as that server's harness error.
	Invalid error
}

// Where names the entry for messages: "FILE: mcpServers.NAME".
func (e Entry) Where() string { return fmt.Sprintf("%s: %s.%s", e.Source, e.Key, e.Name) }

// rawEntry is the union of the clients' entry shapes.
type rawEntry struct {
	Type      *string           `json:"type"`
	Command   *string           `json:"command"`
	Args      []json.RawMessage `json:"args"`
	Env       map[string]any    `json:"env"`
	URL       *string           `json:"url"`
	ServerURL *string           `json:"serverUrl"` // Windsurf's name for url
	Headers   map[string]any    `json:"headers"`
	Disabled  *bool             `json:"disabled"`
}

// inputRef matches VS Code's ${input:ID} placeholder.
var inputRef = regexp.MustCompile(`\$\{input:([^}]*)\}`)

// Load reads one client configuration, at most MaxConfigBytes, and returns
// its entries in name order. Its error is about the whole file; an entry
// that cannot be read is returned with Invalid set, naming the file and
// the entry.
func Load(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(data) > MaxConfigBytes {
		return nil, fmt.Errorf("%s: larger than %d KiB; not an MCP client configuration", path, MaxConfigBytes>>10)
	}
	if strings.EqualFold(filepath.Ext(path), ".toml") {
		return ParseTOML(path, data)
	}
	return Parse(path, data)
}

// Parse reads a client configuration: an object with "mcpServers" (Claude
// Desktop, Cursor, Windsurf, a plain file) or "servers" (VS Code), or VS
// Code's settings form {"mcp": {"servers": ...}}. Comments and trailing
// commas (VS Code's JSONC) are allowed.
func Parse(name string, data []byte) ([]Entry, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(stripJSONC(data), &top); err != nil {
		if se, ok := errors.AsType[*json.SyntaxError](err); ok {
			line, col := lineCol(data, se.Offset)
			return nil, fmt.Errorf("%s:%d:%d: not a JSON object: %v", name, line, col, err)
		}
		return nil, fmt.Errorf("%s: not a JSON object: %v", name, err)
	}
	key := ""
	var servers json.RawMessage
	for _, k := range []string{"mcpServers", "servers"} {
		if v, ok := top[k]; ok {
			key, servers = k, v
			break
		}
	}
	if key == "" {
		if mcp, ok := top["mcp"]; ok {
			var inner map[string]json.RawMessage
			if json.Unmarshal(mcp, &inner) == nil && inner["servers"] != nil {
				key, servers = "mcp.servers", inner["servers"]
			}
		}
	}
	if key == "" && settingsFile(name) {
		return nil, nil // a client's settings with no server configured
	}
	if key == "" {
		return nil, fmt.Errorf("%s: no \"mcpServers\" or \"servers\" object: not an MCP client configuration", name)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(servers, &raw); err != nil {
		return nil, fmt.Errorf("%s: %s: want an object of servers by name", name, key)
	}
	names := make([]string, 0, len(raw))
	for n := range raw {
		names = append(names, n)
	}
	slices.Sort(names)
	var entries []Entry
	for _, n := range names {
		e, err := parseEntry(name, key, n, raw[n])
		if err != nil {
			e = Entry{Name: n, Source: name, Key: key, Type: "stdio", Invalid: err}
		}
		entries = append(entries, e)
	}
	return entries, nil
}

func parseEntry(file, key, name string, data json.RawMessage) (Entry, error) {
	e := Entry{Name: name, Source: file, Key: key}
	bad := func(format string, a ...any) (Entry, error) {
		return Entry{}, fmt.Errorf("%s: "+format, append([]any{e.Where()}, a...)...)
	}
	if name == "" || strings.ContainsAny(name, "\x00\n\r") {
		return bad("the server's name must be a non-empty line")
	}
	var r rawEntry
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		return bad("want an object with command or url: %v", err)
	}
	if r.Command != nil {
		e.Command = *r.Command
	}
	for i, a := range r.Args {
		var s string
		if err := json.Unmarshal(a, &s); err != nil {
			return bad("args[%d]: want a string", i)
		}
		e.Args = append(e.Args, s)
	}
	e.URL = deref(r.URL)
	if e.URL == "" {
		e.URL = deref(r.ServerURL)
	}
	var err error
	if e.Env, err = stringMap(r.Env); err != nil {
		return bad("env: %v", err)
	}
	if e.Headers, err = stringMap(r.Headers); err != nil {
		return bad("headers: %v", err)
	}
	e.Disabled = r.Disabled != nil && *r.Disabled
	e.Type = deref(r.Type)
	switch e.Type {
	case "":
		switch {
		case e.Command != "" && e.URL != "":
			return bad("both command and url: keep one")
		case e.Command != "":
			e.Type = "stdio"
		case e.URL != "":
			e.Type = "http"
		default:
			return bad("neither command nor url")
		}
	case "stdio":
		if e.Command == "" {
			return bad("type stdio without a command")
		}
	case "http", "sse", "streamable-http", "streamableHttp":
		if e.URL == "" {
			return bad("type %s without a url", e.Type)
		}
		if e.Type != "sse" {
			e.Type = "http"
		}
	default:
		return bad("type %q: want stdio, http or sse", e.Type)
	}
	if e.Type != "stdio" && e.Command != "" {
		return bad("type %s with a command: an HTTP entry is reached by its url", e.Type)
	}
	seen := map[string]bool{}
	for _, s := range slices.Concat([]string{e.Command, e.URL}, e.Args, values(e.Env), values(e.Headers)) {
		for _, m := range inputRef.FindAllStringSubmatch(s, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				e.Inputs = append(e.Inputs, m[1])
			}
		}
	}
	return e, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// stringMap is a JSON object of strings (numbers and booleans written as
// text), in name order.
func stringMap(m map[string]any) ([]config.KV, error) {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []config.KV
	for _, n := range names {
		var v string
		switch x := m[n].(type) {
		case string:
			v = x
		case float64, bool:
			v = fmt.Sprint(x)
		default:
			return nil, fmt.Errorf("%s: want a string", n)
		}
		out = append(out, config.KV{Name: n, Value: v})
	}
	return out, nil
}

func values(kvs []config.KV) []string {
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		out[i] = kv.Value
	}
	return out
}

// stripJSONC blanks // and /* */ comments outside strings, and commas
// before a closing bracket or brace, so VS Code's JSONC reads as JSON. It
// keeps every byte's offset (a blanked byte becomes a space, a newline
// stays), so a syntax error's offset is the original file's.
func stripJSONC(data []byte) []byte {
	out := bytes.Clone(data)
	inString := false
	lastSig := -1 // the offset of the last byte that is not blank, outside comments
	blank := func(from, to int) {
		for k := from; k < to && k < len(out); k++ {
			if out[k] != '\n' && out[k] != '\r' {
				out[k] = ' '
			}
		}
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			if c == '\\' && i+1 < len(data) {
				i++
			} else if c == '"' {
				inString = false
			}
			lastSig = i
			continue
		}
		switch {
		case c == '"':
			inString = true
			lastSig = i
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			j := i
			for j < len(data) && data[j] != '\n' {
				j++
			}
			blank(i, j)
			i = j - 1
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			j := len(data)
			if end >= 0 {
				j = i + 2 + end + 2
			}
			blank(i, j)
			i = j - 1
		case c == ']' || c == '}':
			if lastSig >= 0 && out[lastSig] == ',' {
				out[lastSig] = ' '
			}
			lastSig = i
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			lastSig = i
		}
	}
	return out
}

// lineCol is the 1-based line and column of offset in data.
func lineCol(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}

// settingsFile reports whether name is a client's whole settings file,
// where MCP servers are one key among many and may be absent: Claude
// Code's ~/.claude.json and Gemini CLI's ~/.gemini/settings.json.
func settingsFile(name string) bool {
	base := filepath.Base(name)
	return base == ".claude.json" || base == "settings.json" && filepath.Base(filepath.Dir(name)) == ".gemini"
}
