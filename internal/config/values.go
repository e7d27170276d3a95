package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/packs"
	"go.yaml.in/yaml/v3"
)

// value decodes v into the setting's field and reports whether it was valid.
func (p *parser) value(s *setting, v *yaml.Node) bool {
	n := len(p.errs)
	switch s.kind {
	case kindString:
		if text, ok := p.text(v, s.key, "want a string"); ok {
			*s.field(p.s).(*string) = text
		}
	case kindNames:
		*s.field(p.s).(*[]string) = p.names(v, s.key)
	case kindArgs:
		*s.field(p.s).(*[]string) = p.args(v, s.key)
	case kindServices:
		list := p.args(v, s.key)
		for i, sv := range list {
			if _, err := contain.ParseService(sv); err != nil {
				p.errorf(v.Content[i], s.key, "%v", err)
			}
		}
		*s.field(p.s).(*[]string) = list
	case kindEnv, kindHeaders:
		*s.field(p.s).(*[]KV) = p.pairs(v, s.key, s.kind == kindHeaders)
	case kindFiles:
		*s.field(p.s).(*[]File) = p.files(v, s.key)
	case kindBool:
		var b bool
		if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&b) != nil {
			p.errorf(v, s.key, "want true or false, got %s", describe(v))
			break
		}
		*s.field(p.s).(*bool) = b
	case kindInt:
		var i int
		if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Decode(&i) != nil {
			p.errorf(v, s.key, "want an integer, got %s", describe(v))
			break
		}
		*s.field(p.s).(*int) = i
	case kindDuration:
		text, ok := p.text(v, s.key, `want a duration such as "30s"`)
		if !ok {
			break
		}
		d, err := time.ParseDuration(text)
		if err != nil {
			p.errorf(v, s.key, `want a duration such as "30s", got %s`, describe(v))
			break
		}
		*s.field(p.s).(*time.Duration) = d
	case kindSeverity:
		text, ok := p.text(v, s.key, "want "+packs.FailOnValues)
		if !ok {
			break
		}
		// The file form is the name as written in lower case: "HIGH" is
		// a flag's or a variable's spelling, not the file's.
		if sev, err := packs.ParseFailOn(text); err == nil && sev.String() == text {
			*s.field(p.s).(*string) = text
			break
		}
		p.errorf(v, s.key, "want %s, got %s", packs.FailOnValues, describe(v))
	case kindNetwork:
		switch text, ok := p.text(v, s.key, "want closed"); {
		case !ok, text == "closed":
		case text == "open":
			p.errorf(v, s.key, "open is not supported yet")
		default:
			p.errorf(v, s.key, "want closed, got %s", describe(v))
		}
	case kindHints:
		*s.field(p.s).(*map[string]map[string]any) = p.hints(v, s.key)
	case kindProbes:
		var rows []map[string]any
		if v.Kind != yaml.SequenceNode || v.Decode(&rows) != nil {
			p.errorf(v, s.key, "want a list of probe rows, got %s", describe(v))
			break
		}
		if CheckRows != nil {
			if err := CheckRows(rows); err != nil {
				p.errorf(v, s.key, "%v", err)
				break
			}
		}
		*s.field(p.s).(*[]map[string]any) = rows
	}
	return len(p.errs) == n
}

// text is a YAML string; anything else is an error "WANT, got ...".
func (p *parser) text(v *yaml.Node, key, want string) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		p.errorf(v, key, "%s, got %s", want, describe(v))
		return "", false
	}
	return v.Value, true
}

// written is a scalar of any type taken as written (8080, true and "x" are
// the strings "8080", "true" and "x"), for values handed to the server.
func (p *parser) written(v *yaml.Node, key, want string) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		p.errorf(v, key, "%s, got %s", want, describe(v))
		return "", false
	}
	return v.Value, true
}

// list checks that v is a list, naming what its items should be.
func (p *parser) list(v *yaml.Node, key, items string) bool {
	if v.Kind != yaml.SequenceNode {
		p.errorf(v, key, "want a list of %s, got %s", items, describe(v))
		return false
	}
	return true
}

// names is a list of names: packs, variable names.
func (p *parser) names(v *yaml.Node, key string) []string {
	if !p.list(v, key, "names") {
		return nil
	}
	var out []string
	for i, item := range v.Content {
		at := fmt.Sprintf("%s[%d]", key, i)
		name, ok := p.text(item, at, "want a name")
		switch {
		case !ok:
		case !validName(name):
			p.errorf(item, at, "want a name, got %s", describe(item))
		default:
			out = append(out, name)
		}
	}
	return out
}

// validName is a non-empty name without spaces, commas or "=".
func validName(name string) bool {
	return name != "" && !strings.ContainsAny(name, " \t\r\n,=\x00")
}

// args is server.args: a list of scalars, each as written.
func (p *parser) args(v *yaml.Node, key string) []string {
	if !p.list(v, key, "strings") {
		return nil
	}
	out := []string{}
	for i, item := range v.Content {
		if arg, ok := p.written(item, fmt.Sprintf("%s[%d]", key, i), "want a string"); ok {
			out = append(out, arg)
		}
	}
	return out
}

// entries walks a map of names to values, reporting duplicate names
// (ignoring letter case when fold is true) and recording each entry's line.
func (p *parser) entries(v *yaml.Node, key string, fold bool, each func(k, val *yaml.Node, at string)) {
	if v.Kind != yaml.MappingNode {
		p.errorf(v, key, "want a map, got %s", describe(v))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if k.Kind != yaml.ScalarNode || isNull(k) {
			p.errorf(k, key, "want a name, got %s", describe(k))
			continue
		}
		at := key + "." + k.Value
		id := k.Value
		if fold {
			id = strings.ToLower(id)
		}
		if first, dup := seen[id]; dup {
			p.errorf(k, at, "duplicate key (first at line %d)", first)
			continue
		}
		seen[id] = k.Line
		if val.Kind == yaml.AliasNode {
			p.errorf(val, at, "YAML aliases are not supported; write the value out")
			continue
		}
		n := len(p.errs)
		each(k, val, at)
		if len(p.errs) == n {
			p.lines[at] = k.Line
		}
	}
}

// pairs is server.env or server.headers.
func (p *parser) pairs(v *yaml.Node, key string, header bool) []KV {
	var out []KV
	p.entries(v, key, header, func(k, val *yaml.Node, at string) {
		switch {
		case header && !validHeaderName(k.Value):
			p.errorf(k, at, "not a valid header name")
			return
		case !header && !validEnvName(k.Value):
			p.errorf(k, at, "not a valid variable name")
			return
		}
		value, ok := p.written(val, at, `want a value (write "" for an empty one)`)
		if !ok {
			return
		}
		if header && strings.ContainsAny(value, "\r\n\x00") {
			p.errorf(val, at, "a header value cannot hold a line break")
			return
		}
		out = append(out, KV{k.Value, value})
	})
	return out
}

// validEnvName is a non-empty variable name without "=" or NUL.
func validEnvName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "=\x00")
}

// validHeaderName is an HTTP token (RFC 9110): letters, digits and
// !#$%&'*+-.^_`|~.
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// files is server.files: path → content.
func (p *parser) files(v *yaml.Node, key string) []File {
	var out []File
	p.entries(v, key, false, func(k, val *yaml.Node, at string) {
		if k.Value == "" {
			p.errorf(k, at, "want a path, got an empty one")
			return
		}
		content, ok := p.written(val, at, "want the file's content as a string (quote it, or use a | block)")
		if !ok {
			return
		}
		if len(content) > MaxFileBytes {
			p.errorf(val, at, "content is %d bytes; at most %d", len(content), MaxFileBytes)
			return
		}
		out = append(out, File{k.Value, content})
	})
	return out
}

// hints is the hints map: pack name → free-form map.
func (p *parser) hints(v *yaml.Node, key string) map[string]map[string]any {
	out := map[string]map[string]any{}
	p.entries(v, key, false, func(k, val *yaml.Node, at string) {
		if p.forbidden(k, at) {
			return
		}
		if !validName(k.Value) {
			p.errorf(k, at, "not a pack name")
			return
		}
		if isNull(val) {
			out[k.Value] = map[string]any{}
			return
		}
		if val.Kind != yaml.MappingNode {
			p.errorf(val, at, "want a map of hints for pack %s, got %s", k.Value, describe(val))
			return
		}
		m, _ := p.free(val, at).(map[string]any)
		for i := 0; i < len(val.Content); i += 2 {
			p.lines[at+"."+val.Content[i].Value] = val.Content[i].Line
		}
		out[k.Value] = m
	})
	return out
}

// free converts a free-form hint value to plain Go values (string, int,
// float64, bool, nil, []any, map[string]any), refusing aliases, duplicate
// keys and the keys active and yes.
func (p *parser) free(v *yaml.Node, at string) any {
	switch v.Kind {
	case yaml.AliasNode:
		p.errorf(v, at, "YAML aliases are not supported; write the value out")
	case yaml.SequenceNode:
		out := []any{}
		for i, item := range v.Content {
			out = append(out, p.free(item, fmt.Sprintf("%s[%d]", at, i)))
		}
		return out
	case yaml.MappingNode:
		out := map[string]any{}
		seen := map[string]int{}
		for i := 0; i+1 < len(v.Content); i += 2 {
			k, val := v.Content[i], v.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				p.errorf(k, at, "want a key name, got %s", describe(k))
				continue
			}
			sub := at + "." + k.Value
			if p.forbidden(k, sub) {
				continue
			}
			if first, dup := seen[k.Value]; dup {
				p.errorf(k, sub, "duplicate key (first at line %d)", first)
				continue
			}
			seen[k.Value] = k.Line
			out[k.Value] = p.free(val, sub)
		}
		return out
	case yaml.ScalarNode:
		switch v.Tag {
		case "!!int", "!!float", "!!bool", "!!null":
			var x any
			if v.Decode(&x) == nil {
				return x
			}
		}
		return v.Value
	}
	return nil
}
