package session

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sealmark/sealmark/packs"
)

// TestClassify: a DiscoverResult naming the modern version, or an error
// only a modern server sends, is modern; any other answer is legacy, and
// no single code decides it.
func TestClassify(t *testing.T) {
	res := func(s string) *packs.Response { return &packs.Response{Result: json.RawMessage(s)} }
	rpcErr := func(code int, data string) *packs.Response {
		return &packs.Response{Error: &packs.RPCError{Code: code, Message: "m", Data: json.RawMessage(data)}}
	}
	for _, tc := range []struct {
		name   string
		resp   *packs.Response
		modern bool
	}{
		{"discover result", res(`{"supportedVersions":["2026-07-28"],"capabilities":{}}`), true},
		{"discover result without versions", res(`{"capabilities":{"tools":{}}}`), true},
		{"discover result of other versions", res(`{"supportedVersions":["2027-01-01"],"capabilities":{}}`), false},
		{"an empty result", res(`{}`), false},
		{"not an object", res(`[]`), false},
		{"method not found", rpcErr(-32601, ``), false},
		{"another error", rpcErr(-32000, ``), false},
		{"invalid params", rpcErr(-32602, ``), false},
		{"header mismatch", rpcErr(CodeHeaderMismatch, ``), true},
		{"missing capability", rpcErr(CodeMissingClientCapability, `{"requiredCapabilities":{}}`), true},
		{"unsupported, ours listed", rpcErr(CodeUnsupportedProtocolVersion, `{"supported":["2026-07-28"]}`), true},
		{"unsupported, ours not listed", rpcErr(CodeUnsupportedProtocolVersion, `{"supported":["2027-01-01"]}`), false},
		{"nothing", nil, false},
	} {
		assert.Equal(t, tc.modern, classify(tc.resp), tc.name)
	}
}

// TestWithMeta: the modern _meta is added to a copy of the params, keeping
// the params' own _meta keys.
func TestWithMeta(t *testing.T) {
	params := map[string]any{"name": "x", "_meta": map[string]any{"progressToken": "p"}}
	got := withMeta(params, ModernVersion).(map[string]any)
	meta := got["_meta"].(map[string]any)
	assert.Equal(t, "p", meta["progressToken"])
	assert.Equal(t, ModernVersion, meta[MetaProtocolVersion])
	assert.Equal(t, map[string]any{}, meta[MetaClientCapabilities])
	assert.Equal(t, "x", got["name"])
	assert.Equal(t, map[string]any{"progressToken": "p"}, params["_meta"], "the caller's params are unchanged")
	assert.Contains(t, withMeta(nil, ModernVersion).(map[string]any), "_meta")
	assert.Equal(t, "oops", withMeta("oops", ModernVersion), "params that are not an object are sent as they are")
	assert.Equal(t, "", Era(""))
	assert.Equal(t, EraLegacy, Era("2025-11-25"))
	assert.Equal(t, EraModern, Era("2026-07-28"))
}

// TestModernHeaders: Mcp-Name carries the tool's name, in the base64
// form when it is not printable ASCII.
func TestModernHeaders(t *testing.T) {
	h := modernHeaders(ModernVersion, "tools/call", map[string]any{"name": "read_note"})
	assert.Equal(t, "tools/call", h.Get("Mcp-Method"))
	assert.Equal(t, "read_note", h.Get("Mcp-Name"))
	assert.Equal(t, ModernVersion, h.Get("MCP-Protocol-Version"))
	h = modernHeaders(ModernVersion, "tools/call", map[string]any{"name": "é"})
	assert.Equal(t, "=?base64?w6k=?=", h.Get("Mcp-Name"))
	assert.Empty(t, modernHeaders(ModernVersion, "tools/list", nil).Get("Mcp-Name"))
}
