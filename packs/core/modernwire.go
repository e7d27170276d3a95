package core

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// The modern era's rules judged on the wire: the shape of every result
// and the error codes of every error the server sent during the pack (the
// frames of the session and the answers to raw requests), with no request
// of their own; and the answer to a legacy client's initialize.

// rawAnswersKey is the Shared key of the JSON-RPC errors that answered the
// pack's raw HTTP requests, which are no frames of the session.
const rawAnswersKey = "core.raw-errors"

// maxRawErrors bounds the raw errors kept for error-codes.
const maxRawErrors = 512

// rawError is one JSON-RPC error that answered a raw HTTP request.
type rawError struct {
	code  int
	where string
}

// noteRawAnswer keeps the JSON-RPC error, if any, of the answer to a raw
// HTTP request, for error-codes.
func noteRawAnswer(p *packs.Pass, request string, status int, body string) {
	if p.Shared == nil {
		return
	}
	var req struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal([]byte(request), &req)
	data := sseData(body)
	code, isErr := parse(packs.Frame{Kind: "json", Data: []byte(data)}).code()
	if !isErr {
		return
	}
	kept, _ := p.Shared[rawAnswersKey].([]rawError)
	if len(kept) >= maxRawErrors {
		return
	}
	where := strings.ReplaceAll(fmt.Sprintf("POST %s → %d %s", req.Method, status, brief([]byte(data))), p.Token, "{token}")
	p.Shared[rawAnswersKey] = append(kept, rawError{code: code, where: where})
}

// frameWhere names a frame for evidence: its stdout line, or its place
// among the messages of an HTTP session.
func frameWhere(p *packs.Pass, f packs.Frame) string {
	if p.HTTP != nil {
		return fmt.Sprintf("message %d: %s", f.Seq+1, briefFrame(f, p.Token))
	}
	return fmt.Sprintf("stdout line %d: %s", f.Seq+1, briefFrame(f, p.Token))
}

// cachedMethods are the methods whose results carry the caching hints
// ttlMs and cacheScope in the modern era.
var cachedMethods = []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list", "resources/read"}

// tally groups the findings of one kind: the first place seen and how
// many more, in the order first seen.
type tally struct {
	order []string
	first map[string]string
	count map[string]int
}

func newTally() *tally { return &tally{first: map[string]string{}, count: map[string]int{}} }

func (t *tally) add(key, where string) {
	if t.count[key]++; t.count[key] == 1 {
		t.order = append(t.order, key)
		t.first[key] = where
	}
}

// report files one finding per key, with the first place as evidence.
func (t *tally) report(p *packs.Pass) {
	for _, key := range t.order {
		f := p.Reportf("%s", key)
		f.Evidencef(evidenceKind(p), "%s", t.first[key])
		if n := t.count[key]; n > 1 {
			f.Evidencef(evidenceKind(p), "%d such messages in all", n)
		}
	}
}

var resultShape = packs.Probe{
	Requires: packs.RequiresModern,
	ID:       "CORE-MODERN-RESULT-SHAPE",
	Name:     "modern-result-shape",
	Severity: packs.High,
	Doc:      "every result must carry resultType (\"complete\" or \"input_required\"), and every list and read result a ttlMs >= 0 and a cacheScope of \"public\" or \"private\", the same on every page; judged on every result to the session's own requests during the pack (spec 2026-07-28 basic/index and the schema's result types, MUST)",
	Run: func(p *packs.Pass) {
		if !needModern(p) {
			return
		}
		found := newTally()
		scopes := map[string][]string{} // method → the cacheScopes its results carried, in order
		checked := 0
		for _, f := range p.Server.Frames(0) {
			m := parse(f)
			if f.Kind != "json" || m.fields == nil || m.fields["method"] != nil || !isObject(m.fields["result"]) {
				continue // not a result; wire-messages judges the malformed ones
			}
			var r map[string]json.RawMessage
			if json.Unmarshal(m.fields["result"], &r) != nil {
				continue
			}
			desc := p.Server.Describe(f)
			if desc == "" {
				// The answer to a raw line of another probe, some sent
				// without a modern _meta or at a version the server does
				// not support on purpose: a dual-era server rightly
				// answers those in the legacy shape, and the probe that
				// sent it judges the answer.
				continue
			}
			checked++
			method, _, _ := strings.Cut(desc, " ")
			what := "a result"
			if method != "" {
				what = "a " + method + " result"
			}
			where := frameWhere(p, f)
			switch rt := r["resultType"]; {
			case rt == nil:
				found.add(what+" has no resultType", where)
			case string(rt) != `"complete"` && string(rt) != `"input_required"`:
				found.add(fmt.Sprintf(`%s has resultType %s, want "complete" or "input_required"`, what, brief(rt)), where)
			}
			if !slices.Contains(cachedMethods, method) {
				continue
			}
			var ttl float64
			switch raw := r["ttlMs"]; {
			case raw == nil:
				found.add(what+" has no ttlMs", where)
			case json.Unmarshal(raw, &ttl) != nil || ttl < 0:
				found.add(fmt.Sprintf("%s has ttlMs %s, want a number >= 0", what, brief(raw)), where)
			}
			var scope string
			switch raw := r["cacheScope"]; {
			case raw == nil:
				found.add(what+" has no cacheScope", where)
			case json.Unmarshal(raw, &scope) != nil || (scope != "public" && scope != "private"):
				found.add(fmt.Sprintf(`%s has cacheScope %s, want "public" or "private"`, what, brief(raw)), where)
			default:
				if seen := scopes[method]; len(seen) > 0 && !slices.Contains(seen, scope) {
					found.add(fmt.Sprintf("%s results carry cacheScope %q and %q; it must be the same on every page", method, seen[0], scope), where)
				}
				if !slices.Contains(scopes[method], scope) {
					scopes[method] = append(scopes[method], scope)
				}
			}
		}
		found.report(p)
		p.Notef("%d results checked", checked)
	},
}

// Error codes of the modern era: the ones 2026-07-28 defines in the range
// it reserves (-32020..-32099), and the ones it retired.
var (
	definedReserved = []int{-32020, -32021, -32022}
	retiredCodes    = map[int]string{
		-32002: "the legacy resource-not-found code; 2026-07-28 answers an unknown resource with -32602",
		-32042: "a legacy code that 2026-07-28 retired",
	}
)

var errorCodes = packs.Probe{
	Requires: packs.RequiresModern,
	ID:       "CORE-MODERN-ERROR-CODES",
	Name:     "modern-error-codes",
	Severity: packs.High,
	Doc:      "a modern server must not send an error code in -32020..-32099 that the spec does not define (it defines -32020, -32021 and -32022), nor -32002 or -32042; judged on every error the server sent during the pack (spec 2026-07-28 basic/index, MUST)",
	Run: func(p *packs.Pass) {
		if !needModern(p) {
			return
		}
		found := newTally()
		judge := func(code int, where string) {
			switch why, retired := retiredCodes[code]; {
			case retired:
				found.add(fmt.Sprintf("the server answered with error %d, which the modern era forbids (%s)", code, why), where)
			case code <= -32020 && code >= -32099 && !slices.Contains(definedReserved, code):
				found.add(fmt.Sprintf("the server answered with error %d, a code the spec does not define in its reserved range -32020..-32099", code), where)
			}
		}
		n := 0
		for _, f := range p.Server.Frames(0) {
			if f.Kind != "json" {
				continue
			}
			if code, isErr := parse(f).code(); isErr {
				n++
				judge(code, frameWhere(p, f))
			}
		}
		raws, _ := p.Shared[rawAnswersKey].([]rawError)
		for _, r := range raws {
			n++
			judge(r.code, r.where)
		}
		found.report(p)
		p.Notef("%d errors checked", n)
	},
}

var legacyInitialize = packs.Probe{
	Requires: packs.RequiresModern,
	ID:       "CORE-MODERN-LEGACY-INITIALIZE",
	Name:     "modern-legacy-initialize",
	Severity: packs.Low,
	Doc:      "a modern-only server should answer a legacy client's initialize (no _meta) with an error that names the protocol versions it supports (spec 2026-07-28 basic/versioning, SHOULD)",
	Run: func(p *packs.Pass) {
		if !needModern(p) || !ready(p) {
			return
		}
		supported := supportedVersions(p)
		if i := slices.IndexFunc(supported, func(v string) bool { return v < modernVersion }); i >= 0 {
			p.NotApplicable("the server also speaks the legacy protocol %s (server/discover supportedVersions), so it is not modern-only", supported[i])
			return
		}
		const id = `"sm-legacy-init"`
		line := `{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":"` + packs.LegacyVersion + `","capabilities":{},"clientInfo":{"name":"sealmark","version":"probe"}}}`
		var r *reply
		if p.HTTP != nil {
			// A legacy client sends neither MCP-Protocol-Version nor Mcp-Method with its initialize.
			var ok bool
			if r, ok = askHTTP(p, line, nil, "a legacy initialize (no _meta, no MCP headers)"); !ok {
				return
			}
		} else {
			var ok bool
			if r, ok = ask(p, id, "initialize", line, "", "a legacy initialize (no _meta)"); !ok {
				return
			}
		}
		if _, isErr := r.msg.code(); !isErr {
			if r.msg.fields == nil {
				p.Reportf("a legacy initialize got no answer; a modern-only server should answer with an error naming %s", strings.Join(supported, ", ")).
					Evidencef(evidenceKind(p), "%s", r.where)
				return
			}
			p.Notef("a legacy initialize was answered with %s (modern-removed-methods judges initialize)", r.got())
			return
		}
		text := string(r.msg.fields["error"])
		if slices.ContainsFunc(supported, func(v string) bool { return strings.Contains(text, v) }) {
			p.Notef("answered %s, naming the supported versions", r.got())
			return
		}
		p.Reportf("the answer to a legacy initialize (%s) names none of the supported versions (%s)", r.got(), strings.Join(supported, ", ")).
			Evidencef(evidenceKind(p), "%s", r.where)
	},
}

// supportedVersions are the versions the DiscoverResult lists, or the
// negotiated one when it lists none.
func supportedVersions(p *packs.Pass) []string {
	var r struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	_ = json.Unmarshal(p.Surface.Init.Result, &r)
	if len(r.SupportedVersions) == 0 {
		return []string{p.Surface.Init.Version}
	}
	return r.SupportedVersions
}
