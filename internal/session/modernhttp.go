package session

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// The modern era over streamable HTTP: every request carries its method
// (and name) in headers beside the _meta, and an unknown method is
// answered 404 with a JSON-RPC error.

// modernVersion is the modern protocol version in use, or "".
func (h *HTTP) modernVersion() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.modern
}

// modernHeaders are the headers a modern request carries over HTTP:
// MCP-Protocol-Version matching its _meta, Mcp-Method, and Mcp-Name for
// the methods that name something (spec 2026-07-28
// basic/transports/streamable-http).
func modernHeaders(version, method string, params any) http.Header {
	hd := http.Header{}
	hd.Set("MCP-Protocol-Version", version)
	hd.Set("Mcp-Method", method)
	key := map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}[method]
	if m, ok := params.(map[string]any); ok && key != "" {
		if name, ok := m[key].(string); ok {
			hd.Set("Mcp-Name", headerValue(name))
		}
	}
	return hd
}

// headerValue is a value as a header carries it: as it is when it is
// visible ASCII and spaces, otherwise in the =?base64?...?= form.
func headerValue(v string) string {
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return fmt.Sprintf("=?base64?%s?=", base64.StdEncoding.EncodeToString([]byte(v)))
		}
	}
	return v
}

// maxErrorBody bounds the body of a 404 read to find a JSON-RPC error.
const maxErrorBody = 1 << 20

// modern404 lets the MCP client read a modern server's 404 answer: the
// client takes every 404 for an ended session and drops its body, but a
// modern request (one with an Mcp-Method header) that gets 404 with a
// JSON-RPC error is an unknown method, whose error a probe judges. Such an
// answer reaches the client as a 200 with the same body; probes that judge
// status codes send their requests with plain net/http.
type modern404 struct{ base http.RoundTripper }

func (m modern404) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := m.base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusNotFound || req.Header.Get("Mcp-Method") == "" {
		return resp, err
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if rerr != nil || json.Unmarshal(body, &msg) != nil || msg.Error == nil {
		return resp, nil
	}
	resp.StatusCode, resp.Status = http.StatusOK, "200 OK (404 from the server, a JSON-RPC error)"
	resp.Header.Set("Content-Type", "application/json")
	return resp, nil
}
