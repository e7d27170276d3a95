package packs_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sealmark/sealmark/packs"
)

// TestProps pins how every pack reads an input schema: sorted by name,
// nullable and listed types, untyped properties, array items, required,
// and a malformed schema read as far as it goes.
func TestProps(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","required":["Repo_Path","paths"],"properties":{
		"Repo_Path": {"type": "string", "description": "the repository"},
		"timeout_ms": {"type": ["null", "integer"]},
		"paths": {"type": "array", "items": {"type": "string"}},
		"edits": {"type": "array", "items": {"type": "object", "properties": {"old": {}}}},
		"anything": {},
		"url": {"type": "string", "format": "uri"},
		"flag": {"type": "boolean"}
	}}`)
	type row struct {
		Name, Norm, Type, ItemType string
		Types                      []string
		Required                   bool
		Text, TextList, Number     bool
	}
	var got []row
	for _, p := range packs.Props(schema) {
		got = append(got, row{p.Name, p.Norm, p.Type, p.ItemType, p.Types, p.Required, p.Text(), p.TextList(), p.Number()})
	}
	want := []row{
		{"Repo_Path", "repopath", "string", "", []string{"string"}, true, true, false, false},
		{"anything", "anything", "", "", nil, false, true, false, false},
		{"edits", "edits", "array", "object", []string{"array"}, false, false, false, false},
		{"flag", "flag", "boolean", "", []string{"boolean"}, false, false, false, false},
		{"paths", "paths", "array", "string", []string{"array"}, true, false, true, false},
		{"timeout_ms", "timeoutms", "integer", "", []string{"null", "integer"}, false, false, false, true},
		{"url", "url", "string", "", []string{"string"}, false, true, false, false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Props =\n%+v\nwant\n%+v", got, want)
	}
	props := packs.Props(schema)
	if props[0].Description != "the repository" || props[6].Format != "uri" || string(props[2].Items) == "" {
		t.Errorf("Props lost a description, format or items: %+v", props)
	}
	if sub := packs.Props(props[2].Items); len(sub) != 1 || sub[0].Name != "old" {
		t.Errorf("Props of edits' items = %+v, want old", sub)
	}
	for _, bad := range []string{``, `null`, `[1,2]`, `{"properties": [1]}`, `{"properties": {"a": 5}}`} {
		if got := packs.Props(json.RawMessage(bad)); len(got) > 1 {
			t.Errorf("Props(%s) = %+v, want at most what could be read", bad, got)
		}
	}
	if got := packs.Props(json.RawMessage(`{"properties": {"a": 5}}`)); len(got) != 1 || got[0].Name != "a" || !got[0].Text() {
		t.Errorf(`Props({"a": 5}) = %+v, want a, untyped`, got)
	}
}

func TestWords(t *testing.T) {
	for name, want := range map[string][]string{
		"gitSetWorking_dir": {"git", "set", "working", "dir"},
		"HTTPServer":        {"http", "server"},
		"read-file v2":      {"read", "file", "v2"},
		"delayMs":           {"delay", "ms"},
		"sleep_millis":      {"sleep", "millis"},
		"timeout-seconds":   {"timeout", "seconds"},
		"a.b":               {"a", "b"},
		"":                  nil,
	} {
		if got := packs.Words(name); !reflect.DeepEqual(got, want) {
			t.Errorf("Words(%q) = %q, want %q", name, got, want)
		}
	}
}
