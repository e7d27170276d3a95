package packs

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
)

// Prop is one property of a tool's input schema, as the packs read it to
// tell what an argument carries (a path, a command line, a URL, SQL).
// Every pack reads schemas through Props, so a nullable type, an untyped
// property or a malformed schema means the same to all of them.
type Prop struct {
	Name string // as the schema names it
	Norm string // NormalizeName(Name): "repo_path" → "repopath"
	// Type is the property's type: the first non-null one of a list
	// (["null", "integer"] is "integer"), "" when untyped.
	Type string
	// Types are all the type names the schema lists, in its order.
	Types []string
	// ItemType is an array's item type, read as Type is.
	ItemType    string
	Required    bool
	Description string
	Format      string          // "uri", "date-time", ...
	Items       json.RawMessage // an array's item schema, as sent
	Schema      json.RawMessage // the property's own schema, as sent
}

// Text reports whether the property takes a string: typed string, or
// untyped.
func (p Prop) Text() bool { return p.Type == "string" || p.Type == "" }

// TextList reports whether the property takes an array of strings (or of
// untyped items).
func (p Prop) TextList() bool {
	return p.Type == "array" && (p.ItemType == "string" || p.ItemType == "")
}

// Number reports whether the property takes a number or an integer.
func (p Prop) Number() bool { return p.Type == "number" || p.Type == "integer" }

// Props reads the properties of an input schema, sorted by name. A
// malformed schema gives what could be read (core reports the defect).
func Props(schema json.RawMessage) []Prop {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	_ = json.Unmarshal(schema, &s)
	props := make([]Prop, 0, len(s.Properties))
	for name, raw := range s.Properties {
		var p struct {
			Type        any             `json:"type"`
			Description string          `json:"description"`
			Format      string          `json:"format"`
			Items       json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(raw, &p)
		pr := Prop{Name: name, Norm: NormalizeName(name), Type: typeName(p.Type), Types: typeNames(p.Type),
			Required: slices.Contains(s.Required, name), Description: p.Description, Format: p.Format, Items: p.Items, Schema: raw}
		if len(p.Items) > 0 {
			var it struct {
				Type any `json:"type"`
			}
			_ = json.Unmarshal(p.Items, &it)
			pr.ItemType = typeName(it.Type)
		}
		props = append(props, pr)
	}
	slices.SortFunc(props, func(a, b Prop) int { return strings.Compare(a.Name, b.Name) })
	return props
}

// typeName is the type a JSON Schema "type" value gives: the string
// itself, or the first non-null name of a list; "" for anything else.
func typeName(t any) string {
	switch v := t.(type) {
	case string:
		return v
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
	}
	return ""
}

func typeNames(t any) []string {
	switch v := t.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// NormalizeName is how argument names are compared: lower case without
// _ - . and spaces ("Repo_Path" and "repo-path" are both "repopath").
func NormalizeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// Words splits a tool name (or a title or description) into lower-case
// words at anything but letters and digits, and at camelCase boundaries:
// "gitSetWorking_dir" → git set working dir, "HTTPServer" → http server.
func Words(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}
