package exec

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sealmark/sealmark/packs"
)

// TestReturned measures output as the tool returned it: the decoded text
// of a result's content, not the JSON around it, the same output sent as
// content and structuredContent once, an error's message and data.
func TestReturned(t *testing.T) {
	mib := strings.Repeat("x", 1<<20)
	js := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	text := func(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
	for _, c := range []struct {
		name   string
		result json.RawMessage
		err    *packs.RPCError
		want   int64
	}{
		{"exactly 1 MiB of text", js(map[string]any{"content": []any{text(mib)}}), nil, 1 << 20},
		{"escaped: 1 MiB decoded from a longer line", js(map[string]any{"content": []any{text(strings.Repeat("\x01", 1<<20))}}), nil, 1 << 20},
		{"content and structuredContent, the same output", js(map[string]any{"content": []any{text(mib)}, "structuredContent": map[string]any{"stdout": mib}}), nil, 1 << 20},
		{"two text items", js(map[string]any{"content": []any{text(mib), text("x")}}), nil, 1<<20 + 1},
		{"an image's data and a resource's text", js(map[string]any{"content": []any{
			map[string]any{"type": "image", "data": "AAAA", "mimeType": "image/png"},
			map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///x", "text": "abc"}}}}), nil, 7},
		{"another result: its strings", js(map[string]any{"stdout": "abc", "code": 0}), nil, 3},
		{"an error", nil, &packs.RPCError{Code: -32603, Message: "boom", Data: js("data")}, 8},
	} {
		assert.Equal(t, c.want, returned(c.result, c.err).bytes, c.name)
	}
}

// TestEstimated: a line too long to keep is estimated from its head, by
// how much of the head is string content, halved.
func TestEstimated(t *testing.T) {
	head := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 4000))
	got := estimated(head, 100<<20)
	assert.True(t, got.estimate)
	assert.Greater(t, got.bytes, int64(45<<20), "plain text: nearly half the line")
	escaped := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + strings.Repeat(`\u0001`, 660))
	got = estimated(escaped, 9<<20)
	assert.Less(t, got.bytes, int64(1<<20), "control bytes, six bytes each on the line: a sixth of it, halved")
}

// TestFlooded: 1 MiB and the tool's own words around it (the fixture's
// "timed out after 10s; stopped" on a loaded machine: 1 MiB + 60 bytes)
// is bounded; past the slack it is a flood.
func TestFlooded(t *testing.T) {
	for n, want := range map[int64]bool{1 << 20: false, 1<<20 + 60: false, 1<<20 + 64<<10: false, 1<<20 + 64<<10 + 1: true, 2 << 20: true} {
		if got := flooded(n); got != want {
			t.Errorf("flooded(%d) = %v, want %v", n, got, want)
		}
	}
}
