package core

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// JSON-RPC framing: ids, parse errors, invalid requests, batches and
// invalid params, judged from raw lines and the answers in the frames.

var requestIDs = packs.Probe{
	ID:       "CORE-REQUEST-IDS",
	Name:     "request-ids",
	Severity: packs.High,
	Doc:      "a response must carry its request's id with the same value and type: a string, 2^53-1, -7 and 0 (spec basic/index, JSON-RPC 2.0 §5)",
	Run: func(p *packs.Pass) {
		if !stdio(p) || !ready(p) {
			return
		}
		method := liveness(p)
		idList := []string{`"sm-id-string"`, "9007199254740991", "-7", "0"}
		lines := make([]*sent, 0, len(idList))
		for _, id := range idList {
			s, err := exchange(p, rawRequest{line: fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q%s}`, id, method, paramsFor(p, "")), ids: ids(id)})
			if broken(p, err, "a request with id "+shown(id)) {
				return
			}
			lines = append(lines, s)
		}
		// A server may answer concurrently: an answer is its request's by
		// id, whenever it comes within the call timeout.
		settle(p, lines...)
		for i, s := range lines {
			id := idList[i]
			answers := s.answers
			switch {
			case slices.ContainsFunc(answers, func(m message) bool { return sameID(m.id(), json.RawMessage(id)) }):
			case len(answers) == 0:
				p.Reportf("a %s request with id %s got no answer", method, shown(id)).
					Evidencef("stdout", "no response with id %s within %s of the request", shown(id), p.CallTimeout)
			default:
				got := shown(string(answers[0].id()))
				p.Reportf("a request with id %s was answered with id %s", shown(id), got).
					Evidencef("stdout", "line %d: %s", answers[0].frame.Seq+1, briefFrame(answers[0].frame, p.Token))
			}
		}
		p.Notef("sent %s with ids %s", method, strings.Join(idList, ", "))
	},
}

// shown is an id for a message.
func shown(id string) string {
	if id == "" {
		return "(none)"
	}
	return id
}

func briefFrame(f packs.Frame, token string) string {
	return strings.ReplaceAll(brief(f.Data), token, "{token}")
}

var parseError = packs.Probe{
	ID:       "CORE-PARSE-ERROR",
	Name:     "parse-error",
	Severity: packs.Low,
	Doc:      "a line that is not JSON should be answered with error -32700 and id null (JSON-RPC 2.0 §5.1; MCP messages MUST follow JSON-RPC, spec basic/index)",
	Run: func(p *packs.Pass) {
		if !stdio(p) || !ready(p) {
			return
		}
		s, err := exchange(p, rawRequest{line: `{"jsonrpc":"2.0","id":"sm-parse","method":"ping"`, ids: ids(`"sm-parse"`), null: true, invalid: true})
		if broken(p, err, "a truncated JSON line") {
			return
		}
		settle(p, s)
		answers := s.answers
		for _, m := range answers {
			if code, ok := m.code(); ok && code == -32700 {
				p.Notef("answered error -32700 with id %s", m.id())
				return
			}
		}
		if len(answers) == 0 {
			p.Reportf("a truncated JSON line got no answer; JSON-RPC asks for error -32700").
				Evidencef("stdout", "no response within %s of the line", p.CallTimeout)
			return
		}
		p.Reportf("a truncated JSON line was answered with %s, want error -32700", answers[0].brief()).
			Evidencef("stdout", "line %d: %s", answers[0].frame.Seq+1, briefFrame(answers[0].frame, p.Token))
	},
}

var invalidRequest = packs.Probe{
	ID:       "CORE-INVALID-REQUEST",
	Name:     "invalid-request",
	Severity: packs.Low,
	Doc:      "JSON that is not a valid request (no method, jsonrpc not \"2.0\", an object or null id, a method that is not a string, params that are not structured, an empty array) should get error -32600 (JSON-RPC 2.0 §4, §5.1; MCP ids MUST NOT be null, spec basic/index)",
	Run: func(p *packs.Pass) {
		if !stdio(p) || !ready(p) {
			return
		}
		// Params that are a string are an invalid request to JSON-RPC and
		// invalid params to MCP: either code will do.
		cases := []struct {
			what, line, id string // id: the id an answer may echo ("" when it has none)
			alsoOK         int
		}{
			{"a request without a method", `{"jsonrpc":"2.0","id":"sm-inv-1"}`, `"sm-inv-1"`, 0},
			{`jsonrpc "1.0"`, `{"jsonrpc":"1.0","id":"sm-inv-2","method":"ping"}`, `"sm-inv-2"`, 0},
			{"an object id", `{"jsonrpc":"2.0","id":{"sm":"inv-3"},"method":"ping"}`, `{"sm":"inv-3"}`, 0},
			{"a null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, "", 0},
			{"a method that is not a string", `{"jsonrpc":"2.0","id":"sm-inv-5","method":5}`, `"sm-inv-5"`, 0},
			{`params "oops"`, `{"jsonrpc":"2.0","id":"sm-inv-6","method":"tools/list","params":"oops"}`, `"sm-inv-6"`, -32602},
			{"an empty array", `[]`, "", 0},
		}
		lines := make([]*sent, 0, len(cases))
		for _, c := range cases {
			r := rawRequest{line: c.line, null: true, invalid: true}
			if c.id != "" {
				r.ids = ids(c.id)
			}
			s, err := exchange(p, r)
			if broken(p, err, c.what) {
				return
			}
			lines = append(lines, s)
		}
		settle(p, lines...)
		var wrong []string
		var evidence []string
		for i, c := range cases {
			answers := lines[i].answers
			if slices.ContainsFunc(answers, func(m message) bool {
				code, ok := m.code()
				return ok && (code == -32600 || code == c.alsoOK)
			}) {
				continue
			}
			got := "no answer"
			if len(answers) > 0 {
				got = answers[0].brief()
				evidence = append(evidence, fmt.Sprintf("%s: line %d: %s", c.what, answers[0].frame.Seq+1, briefFrame(answers[0].frame, p.Token)))
			} else {
				evidence = append(evidence, c.what+": no response")
			}
			wrong = append(wrong, c.what+" ("+got+")")
		}
		if len(wrong) == 0 {
			p.Notef("all %d invalid requests answered -32600", len(cases))
			return
		}
		f := p.Reportf("%d of %d invalid requests were not answered with error -32600: %s", len(wrong), len(cases), strings.Join(wrong, ", "))
		for _, e := range evidence {
			f.Evidencef("stdout", "%s", e)
		}
	},
}

var batch = packs.Probe{
	ID:       "CORE-BATCH",
	Name:     "batch",
	Severity: packs.Low,
	Doc:      "a JSON-RPC batch must be answered as a batch (an array) under 2025-03-26, the one revision that required batching (added by it, removed by 2025-06-18), and may be rejected or ignored under any other; never answered message by message (JSON-RPC 2.0 §6, spec changelogs 2025-03-26 and 2025-06-18)",
	Run: func(p *packs.Pass) {
		if !stdio(p) || !ready(p) {
			return
		}
		line := `[{"jsonrpc":"2.0","id":"sm-batch-1","method":"ping"},{"jsonrpc":"2.0","id":"sm-batch-2","method":"ping"}]`
		s, err := exchange(p, rawRequest{line: line, ids: ids(`"sm-batch-1"`, `"sm-batch-2"`), null: true, batch: true})
		if broken(p, err, "a batch of two pings") {
			return
		}
		settle(p, s)
		answers := s.answers
		var arrays, singles []message
		for _, m := range answers {
			if m.batch != nil {
				arrays = append(arrays, m)
			} else if id := string(m.id()); id == `"sm-batch-1"` || id == `"sm-batch-2"` {
				singles = append(singles, m)
			}
		}
		version := p.Surface.Init.Version
		supported := version == "2025-03-26" // 2024-11-05 had no batches; 2025-06-18 removed them
		switch {
		case len(singles) > 0:
			p.Reportf("the requests of a batch were answered one by one (%d lines), not as one array", len(singles)).
				Evidencef("stdout", "line %d: %s", singles[0].frame.Seq+1, briefFrame(singles[0].frame, p.Token))
		case supported && len(arrays) == 0:
			p.Reportf("a batch of two pings got %s; protocol %s requires batches to be answered with an array", describe(answers), version).
				Evidencef("stdout", "%s", describe(answers))
		default:
			p.Notef("protocol %s: a batch of two pings got %s", version, describe(answers))
		}
	},
}

// describe names what a list of answers was, for a message.
func describe(answers []message) string {
	if len(answers) == 0 {
		return "no answer"
	}
	var parts []string
	for _, m := range answers {
		parts = append(parts, m.brief())
	}
	return strings.Join(parts, ", ")
}

var invalidParams = packs.Probe{
	ID:       "CORE-INVALID-PARAMS",
	Name:     "invalid-params",
	Severity: packs.Low,
	Doc:      "tools/list with params of the wrong shape (an array, a cursor that is a number) should get error -32602, never -32603, which is for real faults (JSON-RPC 2.0 §5.1; spec schema: params is an object, cursor a string)",
	Run: func(p *packs.Pass) {
		if !stdio(p) || !ready(p) {
			return
		}
		if p.Surface.ToolsError != "" {
			p.Inconclusive("tools/list did not work on the first try; tools-list reports it")
			return
		}
		cases := []struct{ what, id, params string }{
			{"params []", `"sm-params-1"`, `[]`},
			{`params {"cursor":5}`, `"sm-params-2"`, `{"cursor":5}`},
		}
		var lines []*sent
		for _, c := range cases {
			s, err := exchange(p, rawRequest{line: `{"jsonrpc":"2.0","id":` + c.id + `,"method":"tools/list","params":` + c.params + `}`, ids: ids(c.id), null: true, invalid: true})
			if broken(p, err, "tools/list with "+c.what) {
				return
			}
			lines = append(lines, s)
		}
		settle(p, lines...)
		for i, c := range cases {
			answers := lines[i].answers
			if len(answers) == 0 {
				p.Reportf("tools/list with %s got no answer; want error -32602", c.what).Evidencef("stdout", "no response")
				continue
			}
			got := answers[0]
			for _, m := range answers {
				if sameID(m.id(), json.RawMessage(c.id)) {
					got = m
				}
			}
			if code, ok := got.code(); ok && code == -32602 {
				p.Notef("tools/list with %s: error %d", c.what, code)
				continue
			}
			p.Reportf("tools/list with %s was answered with %s, want error -32602", c.what, got.brief()).
				Evidencef("stdout", "line %d: %s", got.frame.Seq+1, briefFrame(got.frame, p.Token))
		}
	},
}
