package core

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// The modern era's own rules (protocol 2026-07-28): server/discover, _meta
// on every request, the new error codes, the removed methods, and what a
// server must not send unasked. Each is not applicable on a legacy server,
// as the legacy-only probes (initialize, ping, logging/setLevel,
// version-negotiation, the HTTP session rules) are on a modern one.

// The modern era's version, _meta keys and error codes.
const (
	modernVersion          = packs.ModernVersion
	metaProtocolVersion    = packs.MetaProtocolVersion
	metaClientCapabilities = packs.MetaClientCapabilities
	metaServerInfo         = packs.MetaServerInfo
	codeUnsupportedVersion = packs.CodeUnsupportedProtocolVersion
)

// needModern marks the probe not applicable on a legacy server and reports
// whether it applies.
func needModern(p *packs.Pass) bool {
	if !modern(p) {
		p.NotApplicable("a rule of the modern era (2026-07-28); this server speaks the legacy protocol %s", p.Surface.Init.Version)
		return false
	}
	return true
}

// legacyOnly marks a legacy-era probe not applicable on a modern server
// and reports whether it applies.
func legacyOnly(p *packs.Pass, what string) bool {
	if modern(p) {
		p.NotApplicable("protocol %s has no %s", p.Surface.Init.Version, what)
		return false
	}
	return true
}

// metaJSON is the _meta members of a modern request at version, without
// the keys named in drop.
func metaJSON(version string, drop ...string) string {
	m := map[string]any{
		metaProtocolVersion:    version,
		metaClientCapabilities: map[string]any{},
		packs.MetaClientInfo:   map[string]any{"name": "sealmark", "version": "probe"},
	}
	for _, k := range drop {
		delete(m, k)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// paramsFor is the params member of a raw request line: the given members
// plus the modern _meta on a modern server, "" when there is nothing to send.
func paramsFor(p *packs.Pass, members string) string {
	if modern(p) {
		if members != "" {
			members += ","
		}
		members += `"_meta":` + metaJSON(p.Surface.Init.Version)
	}
	if members == "" {
		return ""
	}
	return `,"params":{` + members + `}`
}

// reply is the answer to one raw modern request.
type reply struct {
	msg    message     // fields nil when nothing answered
	status int         // the HTTP status; 0 on stdio
	header http.Header // the HTTP response's headers; nil on stdio
	where  string      // evidence: the stdout line, or the HTTP exchange
}

// ask sends one raw request line (with id) and returns its answer: on stdio
// the response among the frames, over HTTP the POST's status and body,
// sent with version as MCP-Protocol-Version and method as Mcp-Method. A
// false ok means the probe is over (broken or inconclusive).
func ask(p *packs.Pass, id, method, line, version, what string) (*reply, bool) {
	if p.HTTP != nil {
		return askHTTP(p, line, map[string]string{"MCP-Protocol-Version": version, "Mcp-Method": method}, what)
	}
	s, err := exchange(p, rawRequest{line: line, ids: ids(id)})
	if broken(p, err, what) {
		return nil, false
	}
	settle(p, s)
	for _, m := range s.answers {
		if sameID(m.id(), json.RawMessage(id)) {
			return &reply{msg: m, where: fmt.Sprintf("stdout line %d: %s", m.frame.Seq+1, briefFrame(m.frame, p.Token))}, true
		}
	}
	return &reply{where: what + ": no response"}, true
}

// askHTTP POSTs one raw request line with the given headers (beside the
// configured ones) and returns the answer. A false ok means the probe is
// over (inconclusive).
func askHTTP(p *packs.Pass, line string, headers map[string]string, what string) (*reply, bool) {
	r, err := raw(p, http.MethodPost, line, headers, "")
	if err != nil {
		p.Inconclusive("the POST of %s failed: %v", what, err)
		return nil, false
	}
	body := sseData(r.body)
	return &reply{msg: parse(packs.Frame{Kind: "json", Data: []byte(body)}), status: r.status, header: r.header,
		where: fmt.Sprintf("POST %s → %d %s", what, r.status, brief([]byte(body)))}, true
}

// got describes an answer for a message: "error -32602", "HTTP 200 and a result".
func (r *reply) got() string {
	s := "no answer"
	if r.msg.fields != nil {
		s = r.msg.brief()
	}
	if r.status != 0 {
		s = fmt.Sprintf("HTTP %d and %s", r.status, s)
	}
	return s
}

var discover = packs.Probe{
	Requires: packs.RequiresModern,
	ID:       "CORE-DISCOVER",
	Name:     "discover",
	Severity: packs.High,
	Doc:      "server/discover must return supportedVersions, capabilities and resultType \"complete\", with a non-negative ttlMs and a public or private cacheScope, and should name the server in _meta (spec 2026-07-28 server/discover, MUST)",
	Run: func(p *packs.Pass) {
		if !needModern(p) || !ready(p) {
			return
		}
		res, err := p.Request("server/discover", map[string]any{})
		switch {
		case err != nil:
			p.Reportf("server/discover got no answer: %v", err).Evidencef("response", "%v", err)
			return
		case res.Error != nil:
			p.Reportf("server/discover was answered with %s", oneLine(res.Brief())).Evidencef("response", "server/discover: %s", oneLine(res.Brief()))
			return
		}
		for _, d := range discoverDefects(res.Result, p.Surface.Init.Version) {
			f := p.Reportf("the DiscoverResult %s", d.text)
			f.Evidencef("response", "server/discover result: %s", brief(res.Result))
			if d.should {
				f.Severity = packs.Low
			}
		}
		toolsDeclaredServed(p, "server/discover")
		p.Notef("server/discover: %s", brief(res.Result))
	},
}

// defect is one thing wrong with a result; should marks a SHOULD.
type defect struct {
	text   string
	should bool
}

// discoverDefects lists what is wrong with a DiscoverResult.
func discoverDefects(result json.RawMessage, version string) []defect {
	var r map[string]json.RawMessage
	if json.Unmarshal(result, &r) != nil || r == nil {
		return []defect{{text: "is not an object"}}
	}
	var out []defect
	var versions []string
	switch {
	case r["supportedVersions"] == nil:
		out = append(out, defect{text: "has no supportedVersions"})
	case json.Unmarshal(r["supportedVersions"], &versions) != nil || len(versions) == 0:
		out = append(out, defect{text: "supportedVersions is not a non-empty array of strings"})
	case !slices.Contains(versions, version):
		out = append(out, defect{text: fmt.Sprintf("supportedVersions %v lacks %s, the version the server accepted", versions, version)})
	}
	if !isObject(r["capabilities"]) {
		out = append(out, defect{text: "has no capabilities object"})
	}
	if string(r["resultType"]) != `"complete"` {
		out = append(out, defect{text: fmt.Sprintf(`resultType is %s, want "complete"`, brief(r["resultType"]))})
	}
	if raw, ok := r["ttlMs"]; ok {
		var n float64
		if json.Unmarshal(raw, &n) != nil || n < 0 {
			out = append(out, defect{text: fmt.Sprintf("ttlMs is %s, want a number >= 0", brief(raw))})
		}
	}
	if raw, ok := r["cacheScope"]; ok && string(raw) != `"public"` && string(raw) != `"private"` {
		out = append(out, defect{text: fmt.Sprintf(`cacheScope is %s, want "public" or "private"`, brief(raw))})
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(r["_meta"], &meta)
	var info struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(meta[metaServerInfo], &info) != nil || info.Name == "" {
		out = append(out, defect{text: "names no server in _meta " + metaServerInfo, should: true})
	}
	return out
}

var modernMeta = packs.Probe{
	Requires: packs.RequiresModern,
	ID:       "CORE-MODERN-META",
	Name:     "modern-meta-required",
	Severity: packs.High,
	Doc:      "a request without _meta, or whose _meta lacks protocolVersion or clientCapabilities, must get error -32602 (HTTP 400) (spec 2026-07-28 basic/index, MUST)",
	Run: func(p *packs.Pass) {
		if !needModern(p) || !ready(p) {
			return
		}
		v := p.Surface.Init.Version
		cases := []struct{ what, params string }{
			{"tools/list without _meta", ``},
			{"tools/list whose _meta lacks protocolVersion", `,"params":{"_meta":` + metaJSON(v, metaProtocolVersion) + `}`},
			{"tools/list whose _meta lacks clientCapabilities", `,"params":{"_meta":` + metaJSON(v, metaClientCapabilities) + `}`},
		}
		for i, c := range cases {
			id := fmt.Sprintf(`"sm-meta-%d"`, i+1)
			r, ok := ask(p, id, "tools/list", `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"`+c.params+`}`, v, c.what)
			if !ok {
				return
			}
			code, isErr := r.msg.code()
			if isErr && code == -32602 && (r.status == 0 || r.status == http.StatusBadRequest) {
				continue
			}
			want := "error -32602"
			if r.status != 0 {
				want = "HTTP 400 and error -32602"
			}
			p.Reportf("%s was answered with %s, want %s", c.what, r.got(), want).Evidencef(evidenceKind(p), "%s", r.where)
		}
	},
}

var modernVersionError = packs.Probe{
	Requires: packs.RequiresModern,
	ID:       "CORE-MODERN-UNSUPPORTED-VERSION",
	Name:     "modern-unsupported-version",
	Severity: packs.High,
	Doc:      "a request at a protocol version the server does not support must get error -32022 whose data.supported lists the versions it does (HTTP 400) (spec 2026-07-28 basic/index, MUST)",
	Run: func(p *packs.Pass) {
		if !needModern(p) || !ready(p) {
			return
		}
		const bogus = "1900-01-01"
		const id = `"sm-version-1"`
		r, ok := ask(p, id, "tools/list", `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list","params":{"_meta":`+metaJSON(bogus)+`}}`, bogus, "tools/list at protocol "+bogus)
		if !ok {
			return
		}
		code, isErr := r.msg.code()
		if !isErr || code != codeUnsupportedVersion || (r.status != 0 && r.status != http.StatusBadRequest) {
			want := "error -32022"
			if r.status != 0 {
				want = "HTTP 400 and error -32022"
			}
			p.Reportf("tools/list at protocol %s was answered with %s, want %s", bogus, r.got(), want).Evidencef(evidenceKind(p), "%s", r.where)
			return
		}
		var e struct {
			Data struct {
				Supported []string `json:"supported"`
			} `json:"data"`
		}
		_ = json.Unmarshal(r.msg.fields["error"], &e)
		if len(e.Data.Supported) == 0 {
			p.Reportf("the -32022 error lists no supported versions in data.supported").Evidencef(evidenceKind(p), "%s", r.where)
			return
		}
		p.Notef("error -32022, supported %s", strings.Join(e.Data.Supported, ", "))
	},
}

// removedMethods are the methods 2026-07-28 removed, with their params.
var removedMethods = []struct{ method, members string }{
	{"initialize", `"protocolVersion":"` + packs.LegacyVersion + `","capabilities":{},"clientInfo":{"name":"sealmark","version":"probe"}`},
	{"ping", ``},
	{"logging/setLevel", `"level":"debug"`},
}

var removedMethodsProbe = packs.Probe{
	Requires: packs.RequiresModern,
	ID:       "CORE-MODERN-REMOVED-METHODS",
	Name:     "modern-removed-methods",
	Severity: packs.High,
	Doc:      "initialize, ping and logging/setLevel, removed in 2026-07-28, must get error -32601 (over HTTP with status 404) (spec 2026-07-28 changelog, basic/transports/streamable-http, MUST)",
	Run: func(p *packs.Pass) {
		if !needModern(p) || !ready(p) {
			return
		}
		for i, rm := range removedMethods {
			id := fmt.Sprintf(`"sm-removed-%d"`, i+1)
			line := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + rm.method + `"` + paramsFor(p, rm.members) + `}`
			r, ok := ask(p, id, rm.method, line, p.Surface.Init.Version, rm.method+" with a modern _meta")
			if !ok {
				return
			}
			code, isErr := r.msg.code()
			if isErr && code == -32601 && (r.status == 0 || r.status == http.StatusNotFound) {
				continue
			}
			want := "error -32601"
			if r.status != 0 {
				want = "HTTP 404 and error -32601"
			}
			p.Reportf("%s, removed in %s, was answered with %s, want %s", rm.method, modernVersion, r.got(), want).
				Evidencef(evidenceKind(p), "%s", r.where)
		}
	},
}

var unrequestedLog = packs.Probe{
	Requires: packs.RequiresModern,
	ID:       "CORE-MODERN-NO-UNREQUESTED-LOG",
	Name:     "modern-no-unrequested-log",
	Severity: packs.High,
	Doc:      "a modern server must not send notifications/message for a request whose _meta carries no logLevel; the harness never sends one (spec 2026-07-28 server/utilities/logging, MUST)",
	Run: func(p *packs.Pass) {
		if !needModern(p) {
			return
		}
		n := 0
		for _, f := range p.Server.Frames(0) {
			m := parse(f)
			if string(m.fields["method"]) != `"notifications/message"` {
				continue
			}
			if n++; n == 1 {
				p.Reportf("the server sent notifications/message although no request asked for a log level").
					Evidencef(evidenceKind(p), "message %d: %s", f.Seq+1, briefFrame(f, p.Token))
			}
		}
		if n > 1 {
			p.Notef("%d notifications/message in all", n)
		}
	},
}

var noStdoutRequests = packs.Probe{
	Requires: packs.RequiresModern,
	ID:       "CORE-MODERN-NO-STDOUT-REQUESTS",
	Name:     "modern-no-stdout-requests",
	Severity: packs.High,
	Doc:      "a modern stdio server must not write JSON-RPC requests to stdout (spec 2026-07-28 transports/stdio, MUST)",
	Run: func(p *packs.Pass) {
		if !needModern(p) || !stdio(p) {
			return
		}
		n := 0
		for _, f := range p.Server.Frames(0) {
			m := parse(f)
			if m.fields["method"] == nil || m.fields["id"] == nil {
				continue
			}
			if n++; n <= 3 {
				p.Reportf("stdout line %d is a request (%s) from the server", f.Seq+1, strings.Trim(string(m.fields["method"]), `"`)).
					Evidencef("stdout", "line %d: %s", f.Seq+1, briefFrame(f, p.Token))
			}
		}
		if n > 3 {
			p.Notef("%d requests in all", n)
		}
	},
}

// evidenceKind names where a raw answer was seen.
func evidenceKind(p *packs.Pass) string {
	if p.HTTP != nil {
		return "http"
	}
	return "stdout"
}

// toolsDeclaredServed judges the tools capability the handshake (named by
// what) declared against what tools/list did.
func toolsDeclaredServed(p *packs.Pass, what string) {
	caps := p.Surface.Init.Capabilities
	_, declared := caps["tools"]
	served := p.Surface.ToolsError == "" || !strings.Contains(p.Surface.ToolsError, "-32601")
	switch {
	case served && !declared && len(p.Surface.Tools) > 0:
		p.Reportf("the server answers tools/list (%d tools) but did not declare the tools capability", len(p.Surface.Tools)).
			Evidencef("response", "%s capabilities: %s", what, keys(caps))
	case declared && !served:
		p.Reportf("the server declared the tools capability but tools/list fails: %s", p.Surface.ToolsError).
			Evidencef("response", "tools/list: %s", p.Surface.ToolsError)
	}
}
