package core

import (
	"encoding/json"
	"testing"

	"github.com/sealmark/sealmark/packs"
)

// TestSweepFillsAStatement: server-postgres 0.6.2 lists query with
// {"sql": {"type": "string"}} and no required list; the sweep must still
// send a statement (before, it called query with no sql at all).
func TestSweepFillsAStatement(t *testing.T) {
	var tl packs.Tool
	if err := json.Unmarshal([]byte(`{"name":"query","description":"Run a read-only SQL query","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}`), &tl); err != nil {
		t.Fatal(err)
	}
	args, _ := packs.Arguments(tl.InputSchema, "tok", sweepFill(tl))
	if args["sql"] != benignStatement {
		t.Errorf("sweep arguments of query = %v, want sql %q", args, benignStatement)
	}
	if got := sweepFill(packs.Tool{Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}); len(got) != 0 {
		t.Errorf("sweep fill of get_weather = %v, want nothing", got)
	}
}
