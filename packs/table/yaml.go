package table

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sealmark/sealmark/packs"
)

// fields are the keys of a row in sealmark.yaml, in the order they are
// documented.
var fields = []string{"name", "id", "tool", "args", "expect", "severity", "doc"}

// ParseRows reads rows from YAML text holding a list of rows, as written
// under probes: in sealmark.yaml.
func ParseRows(data []byte) ([]Row, error) {
	var raw []map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("probes: want a list of rows, each a mapping: %v", err)
	}
	return Rows(raw)
}

// Rows turns rows decoded from YAML or JSON (each a map with the keys name,
// id, tool, args, expect, severity, doc) into Rows. expect is a list whose
// items are a bare key or a single-key mapping:
//
//	expect:
//	  - refused
//	  - contains: remember the milk
//	  - not_contains: "{sandbox}"
//	  - matches: '^note \w+:'
//	  - not_matches: goroutine \d+
//	  - no_canary
//	  - no_file_changes_outside_root
//	  - file_changes: ["{sandbox}/notes/{token}.txt"]
//	  - no_connection
//	  - no_program_ran
//	  - not_ran: sm-canary
//	  - no_process_outlived
//	  - within: 5s
//
// A row read here and the same row written in Go build identical probes.
// Rows reports every problem at once, each naming its row; Pack checks the
// rest (names, placeholders, expressions).
func Rows(raw []map[string]any) ([]Row, error) {
	var rows []Row
	var errs []error
	for i, m := range raw {
		r, rowErrs := rowOf(m, i)
		rows = append(rows, r)
		errs = append(errs, rowErrs...)
	}
	return rows, errors.Join(errs...)
}

// rowOf reads one row.
func rowOf(m map[string]any, i int) (Row, []error) {
	var r Row
	var errs []error
	name, _ := m["name"].(string)
	at := where(Row{Name: name}, i)
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(at+": "+format, args...))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(fields, k) {
			fail("unknown field %q (known: %s)", k, strings.Join(fields, ", "))
		}
	}
	text := func(key string) string {
		v, ok := m[key]
		if !ok || v == nil {
			return ""
		}
		s, ok := v.(string)
		if !ok {
			fail("%s: want a text, got %s", key, describe(v))
		}
		return s
	}
	r.Name, r.ID, r.Tool, r.Doc = text("name"), text("id"), text("tool"), text("doc")
	if v, ok := m["args"]; ok && v != nil {
		args, err := argsOf(v)
		if err != nil {
			fail("args: %v", err)
		}
		r.Args = args
	}
	if s := text("severity"); s != "" {
		sev, err := packs.ParseSeverity(s)
		switch {
		case err != nil:
			fail("severity: %v", err)
		case sev == packs.Info:
			fail("severity: info is not allowed for a row: its finding would never fail (use low)")
		default:
			r.Severity = sev
		}
	}
	switch list := m["expect"].(type) {
	case nil:
	case []any:
		for j, item := range list {
			e, err := expectOf(item)
			if err != nil {
				fail("expect[%d]: %v", j, err)
				continue
			}
			r.Expect = append(r.Expect, e)
		}
	default:
		fail("expect: want a list, got %s", describe(list))
	}
	return r, errs
}

// argsOf checks that args is a mapping with text keys at every level.
func argsOf(v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a mapping of argument names to values, got %s", describe(v))
	}
	var bad error
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[any]any:
			bad = fmt.Errorf("a nested mapping has a key that is not a text")
		}
	}
	walk(m)
	return m, bad
}

// bare are the expectations written as a bare key.
var bare = map[string]func() Expect{
	"refused":                      Refused,
	"succeeds":                     Succeeds,
	"no_canary":                    NoCanary,
	"no_file_changes_outside_root": NoFileChangesOutsideRoot,
	"no_connection":                NoConnection,
	"no_program_ran":               NoProgramRan,
	"no_process_outlived":          NoProcessOutlived,
}

// withText are the expectations that take a text.
var withText = map[string]func(string) Expect{
	"contains":     Contains,
	"not_contains": NotContains,
	"matches":      Matches,
	"not_matches":  NotMatches,
	"not_ran":      NotRan,
}

// expectKeys lists every expectation key, for messages.
func expectKeys() string {
	var keys []string
	for _, k := range kinds {
		keys = append(keys, k.key)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}

// expectOf reads one item of expect: "refused" or {"contains": "x"}.
func expectOf(item any) (Expect, error) {
	var key string
	var val any
	switch it := item.(type) {
	case string:
		key = it
	case map[string]any:
		if len(it) != 1 {
			return Expect{}, fmt.Errorf("want one key per item (such as contains: text), got %d", len(it))
		}
		for k, v := range it {
			key, val = k, v
		}
	default:
		return Expect{}, fmt.Errorf("want a key such as refused or a mapping such as contains: text, got %s", describe(item))
	}
	if f, ok := bare[key]; ok {
		if val != nil {
			return Expect{}, fmt.Errorf("%s takes no value", key)
		}
		return f(), nil
	}
	if f, ok := withText[key]; ok {
		s, ok := val.(string)
		if !ok {
			return Expect{}, fmt.Errorf("%s: want a text, got %s (quote it)", key, describe(val))
		}
		return f(s), nil
	}
	switch key {
	case "file_changes":
		var paths []string
		list, ok := val.([]any)
		if !ok && val != nil {
			return Expect{}, fmt.Errorf("file_changes: want a list of paths, got %s", describe(val))
		}
		for _, p := range list {
			s, ok := p.(string)
			if !ok {
				return Expect{}, fmt.Errorf("file_changes: want paths as texts, got %s", describe(p))
			}
			paths = append(paths, s)
		}
		return FileChanges(paths...), nil
	case "within":
		s, ok := val.(string)
		if !ok {
			return Expect{}, fmt.Errorf("within: want a duration such as 5s or 500ms, got %s", describe(val))
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return Expect{}, fmt.Errorf("within: want a duration such as 5s or 500ms: %v", err)
		}
		return Within(d), nil
	}
	return Expect{}, fmt.Errorf("unknown expectation %q (known: %s)", key, expectKeys())
}

// describe names the YAML type of a decoded value.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "nothing"
	case string:
		return fmt.Sprintf("the text %q", v)
	case bool:
		return fmt.Sprintf("the boolean %v", v)
	case int, int64, uint64, float64:
		return fmt.Sprintf("the number %v", v)
	case []any:
		return "a list"
	case map[string]any, map[any]any:
		return "a mapping"
	}
	return fmt.Sprintf("a %T", v)
}
