package core

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// Judgements of what the session and the raw HTTP exchanges record: the
// requests a server sent to a client that declared nothing, and the CORS
// headers of the MCP endpoint.

// capabilityOf names the client capability each server-to-client request
// needs (basic/lifecycle: each side uses only what was negotiated).
var capabilityOf = map[string]string{
	"sampling/createMessage": "sampling",
	"elicitation/create":     "elicitation",
	"roots/list":             "roots",
}

// serverRequester is a session that records the requests the server sent
// to the harness (both transports' sessions do).
type serverRequester interface{ ServerRequests() []string }

// requestFlood is how many unsolicited requests of one method, each
// declined, make a flood (graded high rather than medium).
const requestFlood = 10

var clientCapabilities = packs.Probe{
	ID:       "CORE-CLIENT-CAPABILITIES",
	Name:     "client-capabilities",
	Severity: packs.Medium,
	CWE:      "CWE-285",
	Doc:      "a server must not send sampling/createMessage, elicitation/create or roots/list to a client that declared no sampling, elicitation or roots capability: only negotiated capabilities may be used (basic/lifecycle#capability-negotiation); the harness declares none and declines each",
	Run: func(p *packs.Pass) {
		if modern(p) {
			p.NotApplicable("protocol %s has no server-to-client requests; modern-no-stdout-requests judges any on stdout", p.Surface.Init.Version)
			return
		}
		sr, ok := p.Server.(serverRequester)
		if !ok {
			p.NotApplicable("this session does not record the server's requests")
			return
		}
		counts := map[string]int{}
		var order []string
		for _, m := range sr.ServerRequests() {
			if counts[m] == 0 {
				order = append(order, m)
			}
			counts[m]++
		}
		for _, m := range order {
			capability, needs := capabilityOf[m]
			if !needs {
				p.Notef("the server sent %s (%s)", m, times(counts[m]))
				continue
			}
			f := p.Reportf("the server sent %s (%s) although the client declared no %s capability", m, times(counts[m]), capability).
				Evidencef("response", "%s request from the server, declined by the harness; initialize declared capabilities {}", m)
			if counts[m] >= requestFlood {
				// Declined and asked again: a client that honoured it would
				// put the question to its user or its model over and over.
				f.Severity = packs.High
				f.Evidencef("response", "sent %s although each was declined: a flood", times(counts[m]))
			}
		}
		p.Notef("%d requests from the server", len(sr.ServerRequests()))
	},
}

var httpCORS = packs.Probe{
	Requires: packs.RequiresHTTP,
	ID:       "CORE-HTTP-CORS",
	Name:     "http-cors",
	Severity: packs.Medium,
	CWE:      "CWE-942",
	Doc:      "the MCP endpoint must not let any web page read it: no Access-Control-Allow-Origin: * and no foreign Origin reflected, least of all with Access-Control-Allow-Credentials: true (a page in the user's browser could drive the server)",
	Run: func(p *packs.Pass) {
		if !needHTTP(p) {
			return
		}
		preflight := map[string]string{"Origin": foreign, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type, mcp-session-id, mcp-protocol-version"}
		seen := 0
		for _, c := range []struct {
			what, method, body string
			headers            map[string]string
		}{
			{"OPTIONS (a browser's preflight)", http.MethodOptions, "", preflight},
			{"POST initialize", http.MethodPost, initBody(p), map[string]string{"Origin": foreign}},
		} {
			r, err := raw(p, c.method, c.body, c.headers, "")
			if err != nil {
				p.Notef("%s with Origin %s failed: %v", c.what, foreign, err)
				continue
			}
			endSession(p, r.session)
			seen++
			allow, creds := r.header.Get("Access-Control-Allow-Origin"), strings.EqualFold(r.header.Get("Access-Control-Allow-Credentials"), "true")
			shown := fmt.Sprintf("%s with Origin %s → %d, Access-Control-Allow-Origin: %q", c.what, foreign, r.status, allow)
			if creds {
				shown += ", Access-Control-Allow-Credentials: true"
			}
			switch {
			case allow == foreign && creds:
				f := p.Reportf("the MCP endpoint reflects a foreign Origin with credentials allowed: any web page may call it with the user's cookies and read the answers")
				f.Severity = packs.High
				f.Evidencef("http", "%s", shown)
				return
			case allow == "*" || allow == foreign:
				p.Reportf("the MCP endpoint allows any origin (Access-Control-Allow-Origin: %s): any web page may read its answers", allow).
					Evidencef("http", "%s", shown)
				return
			}
			p.Notef("%s", shown)
		}
		if seen == 0 {
			p.Inconclusive("neither the preflight nor the POST got an HTTP answer")
		}
	},
}

// lastCalls names the last n tool calls the server answered, newest last,
// and the last request of any kind it answered: the calls after which a
// behaviour (staying alive, say) may have begun.
func lastCalls(p *packs.Pass, n int) (calls []string, last string) {
	frames := p.Server.Frames(0)
	for i := len(frames) - 1; i >= 0 && len(calls) < n; i-- {
		what := p.Server.Describe(frames[i])
		if last == "" {
			last = what
		}
		if strings.HasPrefix(what, "tools/call ") && !slices.Contains(calls, what) {
			calls = append(calls, what)
		}
	}
	slices.Reverse(calls)
	return calls, last
}

// times is "once" or "N times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
