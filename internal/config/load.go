package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/sealmark/sealmark/internal/redact"
)

// MaxConfigBytes bounds sealmark.yaml (1 MiB): a config file is small, and a
// larger one is refused rather than read.
const MaxConfigBytes = 1 << 20

// Load reads and parses the config file at path; see Parse. A missing file is
// an error that matches fs.ErrNotExist and says how to write one.
func Load(path string) (*Settings, map[string]int, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, notFound{path}
	case err != nil:
		return nil, nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	case st.IsDir():
		return nil, nil, fmt.Errorf("%s: is a directory; want a YAML file", path)
	case !st.Mode().IsRegular():
		return nil, nil, fmt.Errorf("%s: not a regular file; want a YAML file", path)
	case st.Size() > MaxConfigBytes:
		return nil, nil, fmt.Errorf("%s: %d bytes; a config file is at most %d", path, st.Size(), MaxConfigBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	return Parse(path, data)
}

// notFound is Load's error for a missing file.
type notFound struct{ path string }

func (e notFound) Error() string {
	return e.path + ": no such config file (sealmark init writes one)"
}

func (e notFound) Unwrap() error { return fs.ErrNotExist }

// unwrapPath drops the *fs.PathError wrapper, whose text repeats the path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// CheckRows checks the user's table rows (probes:) as Parse reads them,
// so a bad row is named at its line; nil checks nothing here (the rows
// are checked again when their pack is made). internal/catalogue sets it
// to the table pack's check: the configuration knows no pack.
var CheckRows func(rows []map[string]any) error

// Parse reads a sealmark.yaml held in data; name is how errors and origins
// name the file. It returns the defaults overlaid with what the file sets,
// and the line of every key the file sets (a section such as "server", a
// key such as "server.command", an entry such as "server.env.API_KEY" or
// "hints.fs.depth").
//
// Parsing is strict. An unknown key, a value of the wrong type, a duplicate
// key, a YAML alias, a second document, or the keys active and yes (which
// only the command line may give) are errors; every problem is reported, one
// per line, as "FILE:LINE: KEY: what is wrong". An empty file, or a key with
// no value, sets nothing.
func Parse(name string, data []byte) (*Settings, map[string]int, error) {
	s := Defaults()
	p := &parser{name: name, s: &s, lines: map[string]int{}}
	if len(data) > MaxConfigBytes {
		return nil, nil, fmt.Errorf("%s: %d bytes; a config file is at most %d", name, len(data), MaxConfigBytes)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &s, p.lines, nil
		}
		return nil, nil, p.syntax(err, data)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, nil, p.syntax(err, data)
	default:
		return nil, nil, fmt.Errorf("%s:%d: a second YAML document; sealmark.yaml holds one", name, marker(data, next))
	}
	top := doc.Content[0]
	switch {
	case isNull(top):
	case top.Kind == yaml.MappingNode:
		p.section(top, "")
	default:
		return nil, nil, fmt.Errorf("%s:%d: want a map of settings at the top level, got %s", name, top.Line, printable(describe(top)))
	}
	if len(p.errs) > 0 {
		return nil, nil, errors.Join(p.errs...)
	}
	return &s, p.lines, nil
}

// marker is the line of the "---" that starts doc, or of doc's content
// when no marker precedes it.
func marker(data []byte, doc yaml.Node) int {
	line := doc.Line
	if len(doc.Content) > 0 {
		line = doc.Content[0].Line
	}
	lines := bytes.Split(data, []byte("\n"))
	for i := min(line, len(lines)) - 1; i >= 0; i-- {
		if bytes.HasPrefix(lines[i], []byte("---")) {
			return i + 1
		}
	}
	return line
}

// parser walks one file's nodes into Settings, collecting every problem.
type parser struct {
	name  string
	s     *Settings
	lines map[string]int
	errs  []error
}

func (p *parser) errorf(n *yaml.Node, key, format string, a ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s:%d: %s: %s", p.name, n.Line, keyName(key), printable(fmt.Sprintf(format, a...))))
}

// keyName shows a key as written, or quoted when it is empty, has white
// space at an end or a character printable would escape: a key of one
// space is named " ", not left blank.
func keyName(key string) string {
	if key == "" || strings.TrimSpace(key) != key || printable(key) != key {
		return strconv.Quote(key)
	}
	return key
}

// printable escapes the control characters (a line break in a key, a
// terminal escape in a value) and invalid UTF-8 of the file's text in a
// problem, so each problem stays one line: "a\nb", "\x1b[31m", "\xff".
func printable(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// yamlLine matches the position yaml puts in a syntax error. An error
// without one is on the first line (yaml omits line 1).
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// syntax rewrites a YAML syntax error as "FILE:LINE: invalid YAML: ...",
// with a hint when a tab indents the line.
func (p *parser) syntax(err error, data []byte) error {
	msg, line := err.Error(), 1
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	if strings.Contains(msg, "tab") || tabIndented(data, line) {
		msg += " (indent with spaces, not tabs)"
	}
	return fmt.Errorf("%s:%d: invalid YAML: %s", p.name, line, printable(msg))
}

// tabIndented reports whether a tab is part of the indentation of line n
// (1-based) of data.
func tabIndented(data []byte, n int) bool {
	lines := bytes.Split(data, []byte("\n"))
	if n < 1 || n > len(lines) {
		return false
	}
	l := lines[n-1]
	indent := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
	return bytes.IndexByte(indent, '\t') >= 0
}

// section reads the mapping m whose key path is prefix ("" at the top).
func (p *parser) section(m *yaml.Node, prefix string) {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			p.errorf(k, orTop(prefix), "want a key name, got %s", describe(k))
			continue
		}
		path := join(prefix, k.Value)
		if p.forbidden(k, path) {
			continue
		}
		if strings.Contains(k.Value, ".") {
			p.errorf(k, path, "unknown key%s", dotted(path))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			p.errorf(k, path, "duplicate key (first at line %d)", first)
			continue
		}
		seen[k.Value] = k.Line
		if v.Kind == yaml.AliasNode {
			p.errorf(v, path, "YAML aliases are not supported; write the value out")
			continue
		}
		switch s := fileKeys[path]; {
		case s != nil:
			if isNull(v) {
				continue
			}
			if p.value(s, v) {
				p.lines[path] = k.Line
			}
		case sections[path]:
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.MappingNode {
				p.errorf(v, path, "want a map of settings, got %s", describe(v))
				continue
			}
			p.lines[path] = k.Line
			p.section(v, path)
		default:
			p.errorf(k, path, "unknown key%s", suggestion(path))
		}
	}
}

// forbidden reports (and records) the keys only the command line may set:
// active and yes, with or without dashes, in any letter case.
func (p *parser) forbidden(k *yaml.Node, path string) bool {
	name := strings.TrimLeft(k.Value, "-")
	for _, flag := range []string{"active", "yes"} {
		if strings.EqualFold(name, flag) {
			p.errorf(k, path, "--%s cannot be set in a file; pass --%s on the command line", flag, flag)
			return true
		}
	}
	return false
}

// suggestion is " (did you mean KEY?)" for the known key nearest to an
// unknown path, or "".
func suggestion(path string) string {
	if near := nearestKey(path); near != "" {
		return " (did you mean " + near + "?)"
	}
	return ""
}

// dotted is the hint for a key written with dots ("server.command: x"):
// sealmark.yaml nests its sections.
func dotted(path string) string {
	if fileKeys[path] == nil && !sections[path] {
		return suggestion(path)
	}
	i := strings.LastIndex(path, ".")
	return fmt.Sprintf(" (write it nested: %q, then %q indented under it)", path[:i]+":", path[i+1:]+":")
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

func orTop(prefix string) string {
	if prefix == "" {
		return "(top level)"
	}
	return prefix
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// describe names a node's value for "got ..." in an error, bounded in size.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	v := redact.Passwords(n.Value) // masked before the cut, which would keep a part
	if len(v) > 40 {
		v = v[:40] + "..."
	}
	switch n.Tag {
	case "!!null":
		return "nothing"
	case "!!str":
		return strconv.Quote(v)
	}
	return v
}
