// Package pin is Sealmark's tool lock: a file that pins every tool a
// server lists (its name, its description verbatim, and hashes of its input
// schema and its annotations) together with the server's name and version,
// so that a later run can tell a tool that changed since it was reviewed (a
// rug pull) from one that did not.
//
//	lock := pin.New(pin.Server{Name: "notes", Version: "1.2.0"}, defs, time.Now()) // defs already redacted
//	data, _ := lock.Marshal()                                          // pretty, stable, ends with a newline
//	old, err := pin.Read("sealmark.lock.json")
//	for _, c := range pin.Compare(old, lock) {
//		fmt.Println(c.Summary())
//		for _, line := range c.Diff { fmt.Println(line) }
//	}
//
// The file is meant to be committed next to sealmark.yaml and reviewed like
// code: tools are sorted by name, map keys are sorted, descriptions are
// kept verbatim (a changed description is a readable line diff in code
// review), and nothing in it depends on the run that wrote it. The caller
// passes definitions through the run's redaction first, so no secret and no
// run-specific path is ever written; values the server computes when it
// starts (a date in a default, a uuid, an epoch near now) are written as
// their kind ("<a time or date>", see internal/startvalue), so a server
// that offers "the last 30 days" by default holds its lock from day to day.
package pin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/startvalue"
)

// Format is the lock file's format version, written as sealmark_lock.
const Format = 1

// DefaultFile is the lock's file name: sealmark pin writes it next to
// sealmark.yaml (or in the working directory), and a run reads it from
// there when no lock is named.
const DefaultFile = "sealmark.lock.json"

// Lock is one server's pinned tool list.
type Lock struct {
	// Format is the file's format version (Format).
	Format int `json:"sealmark_lock"`
	// Server is the server's name and version from its initialize answer.
	Server Server `json:"server"`
	// Tools are the pinned tools, sorted by name.
	Tools []Tool `json:"tools"`
	// Path is the file the lock was read from, "" for a lock made in
	// memory; it is not written.
	Path string `json:"-"`
}

// Server is serverInfo of the initialize answer.
type Server struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Tool is one pinned tool.
type Tool struct {
	Name string `json:"name"`
	// Description is kept verbatim (after redaction), so that a change is
	// a readable diff.
	Description string `json:"description"`
	// InputSchema and Annotations are digests of the tool's inputSchema
	// and annotations as canonical JSON (keys sorted, no insignificant
	// space).
	InputSchema Digest `json:"input_schema"`
	Annotations Digest `json:"annotations"`
}

// Digest is a JSON value's SHA-256 and, for an object, a short digest of
// each member, which lets a change name the member that changed: the
// properties of an input schema, the keys of annotations. SHA256 alone
// decides whether the value changed; Members only explain how.
type Digest struct {
	SHA256  string            `json:"sha256"`
	Members map[string]string `json:"members,omitempty"`
}

// Definition is one tool as a server listed it: the input of New. The raw
// JSON values may be empty (absent).
type Definition struct {
	Name, Description        string
	InputSchema, Annotations json.RawMessage
}

// New pins defs, listed at now: one Tool each, sorted by name. A name
// listed twice keeps its first definition. Values computed at start are
// written as their kind (startvalue.Text and startvalue.JSON).
func New(server Server, defs []Definition, now time.Time) Lock {
	l := Lock{Format: Format, Server: server, Tools: []Tool{}}
	seen := map[string]bool{}
	for _, d := range defs {
		if seen[d.Name] {
			continue
		}
		seen[d.Name] = true
		l.Tools = append(l.Tools, Tool{
			Name:        d.Name,
			Description: startvalue.Text(d.Description, now),
			InputSchema: digest(d.InputSchema, "properties", now),
			Annotations: digest(d.Annotations, "", now),
		})
	}
	sort.Slice(l.Tools, func(i, j int) bool { return l.Tools[i].Name < l.Tools[j].Name })
	return l
}

// memberLen is how many hex digits of a member's SHA-256 a Digest keeps:
// enough to tell members apart, short enough to read.
const memberLen = 16

// digest hashes raw as canonical JSON. Members are the entries of the
// object under key (key "" means raw's own members), when there is one.
func digest(raw json.RawMessage, key string, now time.Time) Digest {
	v, ok := decode(raw)
	if ok {
		v = startvalue.JSON(v, now)
	}
	d := Digest{SHA256: sum(canonical(raw, v, ok))}
	obj, _ := v.(map[string]any)
	if key != "" {
		obj, _ = obj[key].(map[string]any)
	}
	if len(obj) > 0 {
		d.Members = map[string]string{}
		for k, m := range obj {
			b, _ := marshal(m)
			d.Members[k] = sum(b)[:memberLen]
		}
	}
	return d
}

// decode reads raw as JSON, keeping numbers as written; absent is null.
func decode(raw json.RawMessage) (any, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	return v, true
}

// canonical is v as canonical JSON, or raw itself when it is not JSON.
func canonical(raw json.RawMessage, v any, ok bool) []byte {
	if !ok {
		return raw
	}
	b, err := marshal(v)
	if err != nil {
		return raw
	}
	return b
}

// marshal is encoding/json with sorted keys (its map order) and no HTML
// escaping, without the trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Marshal is the lock file's content: indented JSON with the tools sorted
// by name, ending with a newline.
func (l Lock) Marshal() ([]byte, error) {
	l.Format = Format
	if l.Tools == nil {
		l.Tools = []Tool{}
	}
	sort.Slice(l.Tools, func(i, j int) bool { return l.Tools[i].Name < l.Tools[j].Name })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // a description's <IMPORTANT> stays readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(l); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write writes the lock to path, replacing the file whole (a temporary
// file renamed over it).
func (l Lock) Write(path string) error {
	data, err := l.Marshal()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sealmark-lock-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Read reads a lock file. Unknown keys, another format version, a tool
// without a name and a name listed twice are errors naming the file.
func Read(path string) (*Lock, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	l.Path = path
	return l, nil
}

// Parse reads a lock file's content (see Read).
func Parse(data []byte) (*Lock, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var l Lock
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("not a Sealmark lock file: %v", err)
	}
	if l.Format != Format {
		return nil, fmt.Errorf("sealmark_lock is %d, want %d (written by another Sealmark version; rewrite it with sealmark pin --update)", l.Format, Format)
	}
	var errs []error
	seen := map[string]bool{}
	for i, t := range l.Tools {
		switch {
		case t.Name == "":
			errs = append(errs, fmt.Errorf("tools[%d] has no name", i))
		case seen[t.Name]:
			errs = append(errs, fmt.Errorf("tool %q is listed twice", t.Name))
		case t.InputSchema.SHA256 == "" || t.Annotations.SHA256 == "":
			errs = append(errs, fmt.Errorf("tool %q has no input_schema or annotations sha256", t.Name))
		}
		seen[t.Name] = true
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &l, nil
}

// Beside is the default lock path for a config file: DefaultFile in the
// config file's directory, or in the working directory when there is no
// config file ("").
func Beside(configPath string) string {
	if configPath == "" {
		return DefaultFile
	}
	return filepath.Join(filepath.Dir(configPath), DefaultFile)
}

// Find returns the lock a run uses: the one at path when path is given
// (its absence is an error), else the one at Beside(configPath) when it
// exists, else nil.
func Find(path, configPath string) (*Lock, error) {
	if path != "" {
		l, err := Read(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s does not exist: sealmark pin writes it", path)
		}
		return l, err
	}
	l, err := Read(Beside(configPath))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return l, err
}

// FileFor is the lock file of a scanned server in dir: the server's name,
// with every character other than a letter, a digit, '.', '_' and '-'
// replaced by '_', and ".lock.json".
func FileFor(dir, server string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, server)
	if name == "" || strings.Trim(name, ".") == "" {
		name = "_" + name
	}
	return filepath.Join(dir, name+".lock.json")
}
