package fs

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Roles lists every role a hint may name.
var Roles = []Role{Read, ReadMany, List, Search, Stat, Write, Edit, Mkdir, Move, Delete, Link}

// hintKeys are the keys one tool's hint may set.
var hintKeys = []string{"role", "path", "to"}

// ParseHints reads the fs pack's hints as configuration writes them
// (hints.fs in sealmark.yaml): a map of tool name to {role, path, to}.
//
//	hints:
//	  fs:
//	    peek: {role: read, path: ref}   # peek(ref) reads the file ref names
//	    transmogrify: {role: move, to: into}
//	    read_file: {}                   # no role: leave read_file unprobed
//
// Every unknown key, unknown role and value that is not a string is an
// error naming its key ("hints.fs.peek: unknown role "reed" ..."), prefixed
// by at(key) when at is not nil (the CLI passes where the key came from,
// "sealmark.yaml:7: hints.fs.peek"). Whether each tool exists is known only
// once the server lists its tools: see CheckHints.
func ParseHints(m map[string]any, at func(key string) string) ([]Hint, error) {
	if at == nil {
		at = func(key string) string { return key }
	}
	var out []Hint
	var errs []error
	for _, tool := range slices.Sorted(maps.Keys(m)) {
		key := "hints.fs." + tool
		spec, ok := m[tool].(map[string]any)
		if !ok && m[tool] != nil {
			errs = append(errs, fmt.Errorf("%s: want a map of role, path and to, got %T", at(key), m[tool]))
			continue
		}
		h := Hint{Tool: tool}
		for _, k := range slices.Sorted(maps.Keys(spec)) {
			v, isStr := spec[k].(string)
			switch {
			case !slices.Contains(hintKeys, k):
				errs = append(errs, fmt.Errorf("%s: unknown key %q (known: %s)", at(key), k, strings.Join(hintKeys, ", ")))
				continue
			case !isStr:
				errs = append(errs, fmt.Errorf("%s: %s must be a string, got %T", at(key), k, spec[k]))
				continue
			}
			switch k {
			case "role":
				if !slices.Contains(Roles, Role(v)) {
					errs = append(errs, fmt.Errorf("%s: unknown role %q (known: %s)", at(key), v, roleList()))
				}
				h.Role = Role(v)
			case "path":
				h.Path = v
			case "to":
				h.To = v
			}
		}
		if h.To != "" && h.Role != Move && h.Role != Link {
			errs = append(errs, fmt.Errorf("%s: to is for the move and link roles, not %q", at(key), h.Role))
		}
		out = append(out, h)
	}
	return out, errors.Join(errs...)
}

// CheckHints reports every hint naming a tool the server does not list.
func CheckHints(hints []Hint, tools []string, at func(key string) string) error {
	if at == nil {
		at = func(key string) string { return key }
	}
	var errs []error
	for _, h := range hints {
		if !slices.Contains(tools, h.Tool) {
			errs = append(errs, fmt.Errorf("%s: the server lists no tool %q (its tools: %s)", at("hints.fs."+h.Tool), h.Tool, strings.Join(tools, ", ")))
		}
	}
	return errors.Join(errs...)
}

func roleList() string {
	s := make([]string, len(Roles))
	for i, r := range Roles {
		s[i] = string(r)
	}
	return strings.Join(s, ", ")
}
