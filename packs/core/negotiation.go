package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// modern reports whether the start negotiated a protocol of the modern era
// (2026-07-28 and later), which has no initialize, ping or logging/setLevel.
func modern(p *packs.Pass) bool { return p.Surface.Init.Version >= packs.ModernVersion }

// unknownVersion is the protocol version no server supports.
const unknownVersion = "1999-01-01"

var versionNegotiation = packs.Probe{
	ID:       "CORE-VERSION-NEGOTIATION",
	Name:     "version-negotiation",
	Severity: packs.High,
	Doc:      "initialize asking for an unknown protocol version must be answered with a version the server supports, or an error; never the unknown version (spec 2025-11-25 basic/lifecycle#version-negotiation)",
	Run: func(p *packs.Pass) {
		if modern(p) {
			p.NotApplicable("protocol %s has no initialize", p.Surface.Init.Version)
			return
		}
		if !slices.Contains(KnownVersions, p.Surface.Init.Version) {
			p.Inconclusive("the first initialize already negotiated %q; initialize reports it", p.Surface.Init.Version)
			return
		}
		if p.HTTP != nil && p.Server.Transport() == "http" {
			negotiateHTTP(p)
			return
		}
		if !ready(p) {
			return
		}
		// A second initialize on the same connection: the only one a stdio
		// server gets. It runs last among the probes that talk to the
		// server, since a server may reset its session on it.
		res, err := p.Request("initialize", map[string]any{
			"protocolVersion": unknownVersion,
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]any{"name": "sealmark", "version": "probe"},
		})
		switch {
		case err != nil && !p.Server.Alive():
			p.Reportf("the server exited on an initialize asking for protocol %s (%s)", unknownVersion, exitOf(p)).
				Evidencef("process", "exit: %s", exitOf(p)).Severity = packs.Medium
			return
		case err != nil:
			p.Inconclusive("a second initialize got no answer within %s; a server may refuse to initialize twice, so negotiation cannot be judged on this connection", p.CallTimeout)
			return
		case res.Error != nil:
			p.Notef("answered %s, data %s", oneLine(res.Brief()), brief(res.Error.Data))
			return
		}
		judgeNegotiated(p, res.Result)
	},
}

// negotiateHTTP asks for the unknown version in an initialize of a session
// of its own: over HTTP every initialize opens one.
func negotiateHTTP(p *packs.Pass) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":"%s","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"sealmark","version":"probe"}}}`, p.Token, unknownVersion)
	r, err := raw(p, http.MethodPost, body, nil, "")
	if err != nil {
		p.Inconclusive("the initialize POST failed: %v", err)
		return
	}
	defer endSession(p, r.session)
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *packs.RPCError `json:"error"`
	}
	if json.Unmarshal([]byte(sseData(r.body)), &msg) != nil || (msg.Result == nil && msg.Error == nil) {
		if r.status >= 400 {
			p.Notef("refused with HTTP %d", r.status)
			return
		}
		p.Inconclusive("the initialize answer (HTTP %d) holds no JSON-RPC response", r.status)
		return
	}
	if msg.Error != nil {
		p.Notef("answered error %d", msg.Error.Code)
		return
	}
	judgeNegotiated(p, msg.Result)
}

// sseData is the JSON of a response body: the body itself, or the data of
// its first server-sent event, whose data lines are joined with "\n" (the
// SSE rule: a message may span several lines).
func sseData(body string) string {
	var data []string
	for line := range strings.SplitSeq(body, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" && data != nil {
			break // the end of the first event with data
		}
		if d, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(d, " "))
		}
	}
	if data == nil {
		return body
	}
	return strings.TrimSpace(strings.Join(data, "\n"))
}

// judgeNegotiated judges the protocolVersion of an initialize result that
// answered a request for the unknown version.
func judgeNegotiated(p *packs.Pass, result json.RawMessage) {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(result, &r)
	switch {
	case r.ProtocolVersion == unknownVersion:
		p.Reportf("initialize asking for protocol %s was answered with %s, a version the server cannot support", unknownVersion, unknownVersion).
			Evidencef("response", "initialize result: %s", brief(result))
	case !slices.Contains(KnownVersions, r.ProtocolVersion):
		p.Reportf("initialize asking for protocol %s was answered with %q, which no specification defines", unknownVersion, r.ProtocolVersion).
			Evidencef("response", "initialize result: %s", brief(result))
	default:
		p.Notef("asked for %s, offered %s", unknownVersion, r.ProtocolVersion)
	}
}

// pingWait bounds how long a ping may take to count as prompt.
const pingWait = 2 * time.Second

var ping = packs.Probe{
	ID:       "CORE-PING",
	Name:     "ping",
	Severity: packs.High,
	Doc:      "ping must be answered promptly with an empty result (spec 2025-11-25 basic/utilities/ping)",
	Run: func(p *packs.Pass) {
		if modern(p) {
			p.NotApplicable("protocol %s has no ping", p.Surface.Init.Version)
			return
		}
		if !ready(p) {
			return
		}
		wait := min(p.CallTimeout, pingWait)
		ctx, cancel := context.WithTimeout(p.Ctx, wait)
		defer cancel()
		res, err := p.Server.Request(ctx, "ping", nil)
		switch {
		case err != nil && (errors.Is(err, packs.ErrClosed) || !p.Server.Alive()):
			p.Reportf("the server exited on ping (%s)", exitOf(p)).Evidencef("process", "exit: %s", exitOf(p))
		case err != nil:
			p.Reportf("ping got %s", packs.Unanswered(err, wait)).Evidencef("response", "%v", err)
		case res.Error != nil:
			p.Reportf("ping was answered with %s, want an empty result", oneLine(res.Brief())).Evidencef("response", "ping: %s", oneLine(res.Brief()))
		case !emptyResult(res.Result):
			p.Reportf("ping was answered with %s, want an empty result {}", brief(res.Result)).Evidencef("response", "ping result: %s", brief(res.Result))
		}
	},
}

// emptyResult reports whether a result is an object with nothing in it but
// _meta.
func emptyResult(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return false
	}
	delete(m, "_meta")
	return len(m) == 0
}
