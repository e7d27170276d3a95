package exec

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sealmark/sealmark/packs"
)

func TestTools(t *testing.T) {
	tool := func(name, schema string) packs.Tool {
		return packs.Tool{Name: name, InputSchema: json.RawMessage(schema)}
	}
	s := &packs.Surface{Tools: []packs.Tool{
		tool("start_process", `{"type":"object","properties":{"command":{"type":"string"},"timeout_ms":{"type":"number"},"shell":{"type":"string"}},"required":["command","timeout_ms"]}`),
		tool("run_command", `{"type":"object","properties":{"cmd":{"type":"string"},"args":{"type":"array","items":{"type":"string"}},"cwd":{"type":"string"},"timeout_seconds":{"type":"number"}}}`),
		tool("terminalInput", `{"type":"object","properties":{"text":{"type":"string"}}}`),
		tool("interact_with_process", `{"type":"object","properties":{"pid":{"type":"number"},"input":{"type":"string"}},"required":["pid","input"]}`),
		tool("show_note", `{"type":"object","properties":{"text":{"type":"string"}}}`),
		tool("refresh", `{"type":"object","properties":{"data":{"type":"string"}}}`),
		tool("read_file", `{"type":"object","properties":{"path":{"type":"string"}}}`),
	}}
	got := map[string]Tool{}
	for _, et := range Tools(s, nil) {
		got[et.Name] = et
	}
	want := map[string]Tool{
		"start_process": {Name: "start_process", Command: "command", Timeout: "timeout_ms", TimeoutMillis: true},
		"run_command":   {Name: "run_command", Command: "cmd", Args: "args", Cwd: "cwd", Timeout: "timeout_seconds"},
		"terminalInput": {Name: "terminalInput", Command: "text"},
	}
	if len(got) != len(want) {
		t.Errorf("Tools found %d tools, want %d: %v", len(got), len(want), got)
	}
	for name, w := range want {
		g, ok := got[name]
		g.Schema = nil
		if !ok || !reflect.DeepEqual(g, w) {
			t.Errorf("%s: got %+v, want %+v", name, g, w)
		}
	}
	hinted := Tools(s, []Hint{{Tool: "show_note", Command: "text"}, {Tool: "run_command"}})
	var names []string
	for _, et := range hinted {
		names = append(names, et.Name)
	}
	if len(names) != 3 || names[0] != "start_process" || names[1] != "terminalInput" || names[2] != "show_note" {
		t.Errorf("with hints: %v, want start_process, terminalInput, show_note (run_command left out by its empty hint)", names)
	}
}
