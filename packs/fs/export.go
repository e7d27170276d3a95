package fs

import "encoding/json"

// Arg is one property of an input schema as the role guessing reads it,
// for other packs that guess roles the same way (packs/git).
type Arg struct {
	Name     string // as the schema names it
	Norm     string // lower case without _ - . and spaces: "repo_path" → "repopath"
	String   bool   // a string (or untyped)
	Strings  bool   // an array of strings
	Required bool
	Schema   json.RawMessage // the property's own schema
}

// Args returns the properties of an input schema, sorted by name. A
// malformed schema gives what could be read.
func Args(schema json.RawMessage) []Arg {
	props, required := properties(schema)
	var raw struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(schema, &raw)
	out := make([]Arg, 0, len(props))
	for _, p := range props {
		out = append(out, Arg{Name: p.name, Norm: p.norm, String: p.str, Strings: p.strs, Required: required[p.name], Schema: raw.Properties[p.name]})
	}
	return out
}

// Words splits a tool name into lower-case words at _ - . / spaces and
// camelCase boundaries: "gitSetWorking_dir" → git set working dir.
func Words(name string) []string { return words(name) }

// Normalize is how argument names are compared: lower case without _ - .
// and spaces.
func Normalize(s string) string { return normalize(s) }
