package packs

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Arguments synthesizes a valid arguments object for a tool from its input
// schema: every required property gets a value of its type (its default or
// first enum value when the schema gives one; strings carry the token), so a
// call is valid without guessing at meaning. Fill overrides or adds values.
// A schema that is not an object schema is an error naming the defect; the
// caller may still call the tool with Fill alone.
func Arguments(schema json.RawMessage, token string, fill map[string]any) (map[string]any, error) {
	args := map[string]any{}
	var s struct {
		Type       any                        `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	var err error
	if len(schema) == 0 || string(schema) == "null" {
		err = fmt.Errorf("inputSchema is missing")
	} else if e := json.Unmarshal(schema, &s); e != nil {
		err = fmt.Errorf("inputSchema is not a JSON object: %v", e)
	} else if s.Type != "object" {
		err = fmt.Errorf("inputSchema type is %v, want \"object\"", s.Type)
	}
	required := append([]string(nil), s.Required...)
	sort.Strings(required)
	for _, name := range required {
		args[name] = value(s.Properties[name], token, 0)
		if n, ok := args[name].(int); ok && n == 1 && processID(name) {
			args[name] = NoProcess
		}
	}
	for k, v := range fill {
		args[k] = v
	}
	return args, err
}

// NoProcess is the process id a synthesized call names: above the largest
// pid_max Linux allows (2^22), so it names no process. A plain 1 would name
// the first process of the server's pid namespace (in a sandbox, the
// containment shim, whose end ends the server) and, uncontained, init.
const NoProcess = 99_999_999

// processID reports whether an argument name speaks of a process id: pid,
// ppid, pgid, processId, process_id, target_pid.
func processID(name string) bool {
	n := NormalizeName(name)
	return n == "pid" || n == "ppid" || n == "pgid" || n == "processid" || n == "process" ||
		strings.HasSuffix(n, "pid") || strings.HasSuffix(n, "processid")
}

// value makes a value that satisfies one property schema.
func value(schema json.RawMessage, token string, depth int) any {
	var p struct {
		Type       any                        `json:"type"`
		Default    any                        `json:"default"`
		Enum       []any                      `json:"enum"`
		Const      any                        `json:"const"`
		Minimum    *float64                   `json:"minimum"`
		Items      json.RawMessage            `json:"items"`
		MinItems   int                        `json:"minItems"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		AnyOf      []json.RawMessage          `json:"anyOf"`
		OneOf      []json.RawMessage          `json:"oneOf"`
	}
	if json.Unmarshal(schema, &p) != nil || depth > 8 {
		return "sealmark-" + token
	}
	switch {
	case p.Const != nil:
		return p.Const
	case p.Default != nil:
		return p.Default
	case len(p.Enum) > 0:
		return p.Enum[0]
	case len(p.AnyOf) > 0:
		return value(p.AnyOf[0], token, depth+1)
	case len(p.OneOf) > 0:
		return value(p.OneOf[0], token, depth+1)
	}
	typ, _ := p.Type.(string)
	if list, ok := p.Type.([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	switch typ {
	case "integer", "number":
		if p.Minimum != nil && *p.Minimum > 1 {
			return *p.Minimum
		}
		return 1
	case "boolean":
		return false
	case "null":
		return nil
	case "array":
		items := []any{}
		for range max(p.MinItems, 0) {
			items = append(items, value(p.Items, token, depth+1))
		}
		return items
	case "object":
		obj := map[string]any{}
		for _, name := range p.Required {
			obj[name] = value(p.Properties[name], token, depth+1)
		}
		return obj
	}
	return "sealmark-" + token
}
