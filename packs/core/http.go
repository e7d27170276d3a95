package core

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// The streamable HTTP transport's own rules (specification 2025-11-25,
// basic/transports#streamable-http and #security-warning), checked with
// plain net/http since the MCP client hides status codes.

// httpProbes apply to HTTP servers only; each is not applicable over stdio.
var httpProbes = []packs.Probe{httpOrigin, httpHost, httpUnknownSession, httpDeletedSession, httpSessionID, httpNotification, httpVersion, httpLoopbackOnly, httpCORS}

// maxHTTPBody bounds what a raw probe reads of a response.
const maxHTTPBody = 64 << 10

// rawResult is one raw exchange.
type rawResult struct {
	status  int
	header  http.Header
	body    string
	session string
}

// raw sends one JSON-RPC message with the configured headers plus extra;
// host, when set, replaces the Host header.
func raw(p *packs.Pass, method, body string, extra map[string]string, host string) (*rawResult, error) {
	req, err := http.NewRequestWithContext(p.Ctx, method, p.HTTP.URL, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range p.HTTP.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := p.HTTP.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxHTTPBody))
	if method == http.MethodPost {
		noteRawAnswer(p, body, resp.StatusCode, string(b))
	}
	return &rawResult{status: resp.StatusCode, header: resp.Header, body: string(b), session: resp.Header.Get("Mcp-Session-Id")}, nil
}

// initBody is an initialize request carrying the probe's token.
func initBody(p *packs.Pass) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":"%s","method":"initialize","params":{"protocolVersion":"`+packs.LegacyVersion+`","capabilities":{},"clientInfo":{"name":"sealmark","version":"probe"}}}`, p.Token)
}

// endSession deletes a session a probe opened, best effort.
func endSession(p *packs.Pass, id string) {
	if id != "" {
		_, _ = raw(p, http.MethodDelete, "", map[string]string{"Mcp-Session-Id": id}, "")
	}
}

// needHTTP marks the probe not applicable over stdio and reports whether it applies.
func needHTTP(p *packs.Pass) bool {
	if p.HTTP == nil {
		p.NotApplicable("an HTTP transport check; this server speaks stdio")
		return false
	}
	if t := p.Server.Transport(); t != "http" {
		p.NotApplicable("a streamable HTTP check; this server speaks the legacy HTTP+SSE transport (%s), whose GET stream and POST endpoint have no such rule", t)
		return false
	}
	return true
}

// needSession marks the probe not applicable when the server uses no sessions.
func needSession(p *packs.Pass) bool {
	if !needHTTP(p) || !legacyOnly(p, "sessions (no Mcp-Session-Id)") {
		return false
	}
	if p.HTTP.SessionID == "" {
		p.NotApplicable("the server assigns no Mcp-Session-Id, so session rules do not apply")
		return false
	}
	return true
}

func rebindProbe(id, name, what, shown string, extra map[string]string, host string) packs.Probe {
	return packs.Probe{
		ID: id, Name: name, Severity: packs.High, CWE: "CWE-350", Requires: packs.RequiresHTTP,
		Doc: "a foreign " + what + " must be refused with 403 (4xx) and no session: DNS-rebinding protection (basic/transports#security-warning, MUST)",
		Run: func(p *packs.Pass) {
			if !needHTTP(p) {
				return
			}
			r, err := raw(p, http.MethodPost, initBody(p), extra, host)
			if err != nil {
				p.Inconclusive("the initialize POST failed: %v", err)
				return
			}
			defer endSession(p, r.session)
			if r.status < 400 || r.status > 499 {
				f := p.Reportf("initialize with %s %s was answered %d, want 403", what, shown, r.status)
				f.Evidencef("http", "POST initialize with %s: %s → %d", what, shown, r.status)
				if r.session != "" {
					f.Evidencef("http", "a session was minted (Mcp-Session-Id present)")
				}
			} else {
				p.Notef("refused with %d", r.status)
			}
		},
	}
}

const foreign = "http://evil.example"

var (
	httpOrigin = rebindProbe("CORE-HTTP-ORIGIN", "http-foreign-origin", "Origin", foreign, map[string]string{"Origin": foreign}, "")
	httpHost   = rebindProbe("CORE-HTTP-HOST", "http-foreign-host", "Host", "evil.example", nil, "evil.example")
)

var httpUnknownSession = packs.Probe{
	Requires: packs.RequiresHTTP,
	ID:       "CORE-HTTP-UNKNOWN-SESSION", Name: "http-unknown-session", Severity: packs.High,
	Doc: "a request with a session id the server never issued must get 404 (basic/transports#session-management, MUST)",
	Run: func(p *packs.Pass) {
		if !needSession(p) {
			return
		}
		r, err := raw(p, http.MethodPost, `{"jsonrpc":"2.0","id":"sm-ping","method":"ping"}`, map[string]string{"Mcp-Session-Id": "sealmark-unknown-" + p.Token}, "")
		if err != nil {
			p.Inconclusive("the POST failed: %v", err)
			return
		}
		if r.status != http.StatusNotFound {
			p.Reportf("a request with an unknown session id was answered %d, want 404", r.status).
				Evidencef("http", "POST ping with Mcp-Session-Id sealmark-unknown-{token} → %d", r.status)
		}
	},
}

var httpDeletedSession = packs.Probe{
	Requires: packs.RequiresHTTP,
	ID:       "CORE-HTTP-DELETED-SESSION", Name: "http-deleted-session", Severity: packs.High,
	Doc: "after DELETE ends a session, requests with its id must get 404 (basic/transports#session-management, MUST)",
	Run: func(p *packs.Pass) {
		if !needSession(p) {
			return
		}
		r, err := raw(p, http.MethodPost, initBody(p), nil, "")
		if err != nil || r.session == "" {
			p.Inconclusive("could not open a second session to delete: %v (status %v)", err, statusOf(r))
			return
		}
		d, err := raw(p, http.MethodDelete, "", map[string]string{"Mcp-Session-Id": r.session}, "")
		switch {
		case err != nil:
			p.Inconclusive("the DELETE failed: %v", err)
			return
		case d.status == http.StatusMethodNotAllowed:
			p.NotApplicable("the server does not let clients end sessions (DELETE → 405, which the spec allows)")
			return
		case d.status >= 300:
			p.Reportf("DELETE of a live session was answered %d, want 200/204 (or 405)", d.status).Evidencef("http", "DELETE → %d", d.status)
			return
		}
		after, err := raw(p, http.MethodPost, `{"jsonrpc":"2.0","id":"sm-ping","method":"ping"}`, map[string]string{"Mcp-Session-Id": r.session}, "")
		if err != nil {
			p.Inconclusive("the POST after DELETE failed: %v", err)
			return
		}
		if after.status != http.StatusNotFound {
			p.Reportf("a request on a deleted session was answered %d, want 404", after.status).
				Evidencef("http", "DELETE → %d, then POST ping with the same id → %d", d.status, after.status)
		}
	},
}

var httpSessionID = packs.Probe{
	Requires: packs.RequiresHTTP,
	ID:       "CORE-HTTP-SESSION-ID", Name: "http-session-id", Severity: packs.Medium, CWE: "CWE-330",
	Doc: "session ids must be visible ASCII (0x21-0x7E) and differ between sessions (basic/transports#session-management, MUST/SHOULD)",
	Run: func(p *packs.Pass) {
		if !needSession(p) {
			return
		}
		r, err := raw(p, http.MethodPost, initBody(p), nil, "")
		if err != nil || r.session == "" {
			p.Inconclusive("could not open a second session: %v (status %v)", err, statusOf(r))
			return
		}
		defer endSession(p, r.session)
		for _, id := range []string{p.HTTP.SessionID, r.session} {
			for i := 0; i < len(id); i++ {
				if id[i] < 0x21 || id[i] > 0x7e {
					p.Reportf("a session id holds byte 0x%02x at %d, outside visible ASCII", id[i], i).Evidencef("http", "Mcp-Session-Id of %d bytes", len(id))
					break
				}
			}
		}
		if r.session == p.HTTP.SessionID {
			p.Reportf("two sessions got the same id").Evidencef("http", "two initialize POSTs → the same Mcp-Session-Id")
		}
	},
}

var httpNotification = packs.Probe{
	Requires: packs.RequiresHTTP,
	ID:       "CORE-HTTP-NOTIFICATION-202", Name: "http-notification-202", Severity: packs.Medium,
	Doc: "an accepted notification POST must get 202 Accepted with no body (basic/transports#sending-messages-to-the-server, MUST)",
	Run: func(p *packs.Pass) {
		if !needHTTP(p) || !legacyOnly(p, "notifications/initialized") {
			return
		}
		r, ok := postInSession(p, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
		if !ok {
			return
		}
		if r.status != http.StatusAccepted {
			p.Reportf("a notification POST was answered %d, want 202", r.status).Evidencef("http", "POST notifications/initialized → %d", r.status)
		}
	},
}

var httpVersion = packs.Probe{
	Requires: packs.RequiresHTTP,
	ID:       "CORE-HTTP-PROTOCOL-VERSION", Name: "http-protocol-version", Severity: packs.Medium,
	Doc: "a request with an unsupported MCP-Protocol-Version header must get 400 (basic/transports#protocol-version-header, SHOULD)",
	Run: func(p *packs.Pass) {
		if !needHTTP(p) || !legacyOnly(p, "ping; modern-unsupported-version judges an unknown version") {
			return
		}
		r, ok := postInSession(p, `{"jsonrpc":"2.0","id":"sm-ping","method":"ping"}`, map[string]string{"MCP-Protocol-Version": "1999-01-01"})
		if !ok {
			return
		}
		if r.status != http.StatusBadRequest {
			p.Reportf("MCP-Protocol-Version 1999-01-01 was answered %d, want 400", r.status).Evidencef("http", "POST ping with MCP-Protocol-Version: 1999-01-01 → %d", r.status)
		}
	},
}

var httpLoopbackOnly = packs.Probe{
	Requires: packs.RequiresHTTP,
	ID:       "CORE-HTTP-LOOPBACK-ONLY", Name: "http-loopback-only", Severity: packs.Medium, CWE: "CWE-1327",
	Doc: "a local HTTP server should listen on loopback only (basic/transports#security-warning, SHOULD)",
	Run: func(p *packs.Pass) {
		if p.HTTP == nil { // any HTTP transport, the legacy HTTP+SSE one too
			p.NotApplicable("an HTTP transport check; this server speaks stdio")
			return
		}
		if !p.HTTP.Started || p.Observed == nil {
			p.NotApplicable("the harness did not start this server, so its sockets are not observed")
			return
		}
		for _, r := range p.Observed.Pack() {
			if r.Kind == observers.KindSocket && r.Data[observers.KeyOp] == "listen" && r.Data[observers.KeyScope] == "all-interfaces" {
				p.Reportf("the server listens on all interfaces: %s", stableSocket(p, r)).Evidencef("sockets", "%s", r.Summary)
			}
		}
	},
}

// postInSession POSTs body in the pack's session (when the server uses
// one) with the extra headers; a failed POST makes the probe inconclusive.
func postInSession(p *packs.Pass, body string, extra map[string]string) (*rawResult, bool) {
	headers := map[string]string{}
	for k, v := range extra {
		headers[k] = v
	}
	if p.HTTP.SessionID != "" {
		headers["Mcp-Session-Id"] = p.HTTP.SessionID
	}
	r, err := raw(p, http.MethodPost, body, headers, "")
	if err != nil {
		p.Inconclusive("the POST failed: %v", err)
		return nil, false
	}
	return r, true
}

func statusOf(r *rawResult) any {
	if r == nil {
		return "none"
	}
	return r.status
}
