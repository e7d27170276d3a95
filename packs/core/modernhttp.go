package core

import (
	"context"
	"fmt"
	"net/http"

	"github.com/sealmark/sealmark/packs"
)

// The modern era over streamable HTTP (spec 2026-07-28
// basic/transports/streamable-http): the MCP-Protocol-Version, Mcp-Method
// and Mcp-Name headers repeat the body and must match it, and there are no
// sessions. Status codes come from plain net/http (raw), since the MCP
// client hides them.

// needModernHTTP marks the probe not applicable unless the server speaks
// the modern era over streamable HTTP, and reports whether it applies.
func needModernHTTP(p *packs.Pass) bool {
	return needHTTP(p) && needModern(p)
}

// headerCase is one request whose MCP headers do not match its body.
type headerCase struct {
	what    string
	method  string
	members string            // the params' members beside _meta
	headers map[string]string // the MCP headers sent
}

// headerCases are the mismatches modern-http-headers sends: the version
// and method headers always, the name header for each naming method the
// server declared (with names it does not have, so nothing runs if the
// server does not check).
func headerCases(p *packs.Pass) []headerCase {
	v := p.Surface.Init.Version
	cases := []headerCase{
		{"tools/list with MCP-Protocol-Version 2025-11-25 and _meta protocolVersion " + v, "tools/list", "",
			map[string]string{"MCP-Protocol-Version": packs.LegacyVersion, "Mcp-Method": "tools/list"}},
		{"tools/list without Mcp-Method", "tools/list", "", map[string]string{"MCP-Protocol-Version": v}},
	}
	named := []struct{ capability, method, members, name, other string }{
		{"tools", "tools/call", `"name":"sealmark_no_such_tool","arguments":{}`, "sealmark_no_such_tool", "sealmark_other_tool"},
		{"resources", "resources/read", `"uri":"sealmark:///no-such-resource"`, "sealmark:///no-such-resource", "sealmark:///other-resource"},
		{"prompts", "prompts/get", `"name":"sealmark_no_such_prompt"`, "sealmark_no_such_prompt", "sealmark_other_prompt"},
	}
	for _, n := range named {
		if _, declared := p.Surface.Init.Capabilities[n.capability]; !declared {
			continue
		}
		cases = append(cases,
			headerCase{n.method + " whose Mcp-Name differs from the body", n.method, n.members,
				map[string]string{"MCP-Protocol-Version": v, "Mcp-Method": n.method, "Mcp-Name": n.other}},
			headerCase{n.method + " without Mcp-Name", n.method, n.members,
				map[string]string{"MCP-Protocol-Version": v, "Mcp-Method": n.method}})
	}
	return cases
}

var modernHTTPHeaders = packs.Probe{
	Requires: packs.RequiresHTTP | packs.RequiresModern,
	ID:       "CORE-MODERN-HTTP-HEADERS",
	Name:     "modern-http-headers",
	Severity: packs.High,
	Doc:      "over streamable HTTP, a request whose MCP-Protocol-Version header differs from its _meta, that lacks Mcp-Method, or whose Mcp-Name is missing or differs from the name in the body (tools/call, resources/read, prompts/get) must get HTTP 400 and error -32020 (spec 2026-07-28 basic/transports/streamable-http, MUST)",
	Run: func(p *packs.Pass) {
		if !needModernHTTP(p) || !ready(p) {
			return
		}
		for i, c := range headerCases(p) {
			id := fmt.Sprintf(`"sm-headers-%d"`, i+1)
			line := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + c.method + `"` + paramsFor(p, c.members) + `}`
			r, ok := askHTTP(p, line, c.headers, c.what)
			if !ok {
				return
			}
			if code, isErr := r.msg.code(); isErr && code == codeHeaderMismatch && r.status == http.StatusBadRequest {
				continue
			}
			p.Reportf("%s was answered with %s, want HTTP 400 and error -32020", c.what, r.got()).Evidencef("http", "%s", r.where)
		}
	},
}

// codeHeaderMismatch is the modern error for MCP headers that do not
// match the body.
const codeHeaderMismatch = -32020

var modernHTTPNoSessions = packs.Probe{
	Requires: packs.RequiresHTTP | packs.RequiresModern,
	ID:       "CORE-MODERN-HTTP-NO-SESSIONS",
	Name:     "modern-http-no-sessions",
	Severity: packs.Medium,
	Doc:      "over streamable HTTP a modern server has no sessions: GET and DELETE should get 405, and an Mcp-Session-Id is never minted, echoed or required (spec 2026-07-28 basic/transports/streamable-http, SHOULD)",
	Run: func(p *packs.Pass) {
		if !needModernHTTP(p) || !ready(p) {
			return
		}
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			status, err := statusOnly(p, method)
			if err != nil {
				p.Inconclusive("the %s failed: %v", method, err)
				return
			}
			if status != http.StatusMethodNotAllowed {
				f := p.Reportf("%s was answered %d, want 405 (a modern server has no stream or session for it)", method, status)
				f.Severity = packs.Low
				f.Evidencef("http", "%s → %d", method, status)
			}
		}
		v := p.Surface.Init.Version
		line := `{"jsonrpc":"2.0","id":"sm-sessions-1","method":"tools/list"` + paramsFor(p, "") + `}`
		headers := map[string]string{"MCP-Protocol-Version": v, "Mcp-Method": "tools/list"}
		r, ok := askHTTP(p, line, headers, "tools/list")
		if !ok {
			return
		}
		if r.header.Get("Mcp-Session-Id") != "" {
			p.Reportf("the server minted a session: the answer to a request that sent no Mcp-Session-Id carries one").
				Evidencef("http", "POST tools/list → %d with an Mcp-Session-Id header", r.status)
		}
		sent := "sealmark-session-" + p.Token
		headers["Mcp-Session-Id"] = sent
		line = `{"jsonrpc":"2.0","id":"sm-sessions-2","method":"tools/list"` + paramsFor(p, "") + `}`
		r, ok = askHTTP(p, line, headers, "tools/list with Mcp-Session-Id sealmark-session-{token}")
		if !ok {
			return
		}
		switch got := r.header.Get("Mcp-Session-Id"); {
		case got == sent:
			p.Reportf("the server echoed the Mcp-Session-Id it was sent").
				Evidencef("http", "POST tools/list with Mcp-Session-Id sealmark-session-{token} → %d, the same id back", r.status)
		case got != "":
			p.Reportf("the server minted a session: the answer to a request with an Mcp-Session-Id carries another").
				Evidencef("http", "POST tools/list with Mcp-Session-Id sealmark-session-{token} → %d with another Mcp-Session-Id", r.status)
		}
		if r.status != http.StatusOK || r.msg.fields["result"] == nil {
			p.Reportf("a request with an Mcp-Session-Id was answered with %s, want it served as one without (the header is ignored)", r.got()).
				Evidencef("http", "POST tools/list with Mcp-Session-Id sealmark-session-{token} → %d %s", r.status, r.msg.brief())
		}
	},
}

// statusOnly sends a bodiless request of the given HTTP method with the
// configured headers and returns the status, without reading the body (a
// GET may open a stream that never ends).
func statusOnly(p *packs.Pass, method string) (int, error) {
	ctx, cancel := context.WithTimeout(p.Ctx, shortWait(p))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, p.HTTP.URL, nil)
	if err != nil {
		return 0, err
	}
	for k, v := range p.HTTP.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("MCP-Protocol-Version", p.Surface.Init.Version)
	resp, err := p.HTTP.Client.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
