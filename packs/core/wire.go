package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// maxWireFindings bounds the findings of wire-messages; the rest are counted.
const maxWireFindings = 5

var wireMessages = packs.Probe{
	ID:       "CORE-WIRE-MESSAGES",
	Name:     "wire-messages",
	Severity: packs.Medium,
	Doc:      "every message the server sent must be well-formed JSON-RPC: a string method, structured params, a string or number id (null only on an error), exactly one of result or error, an integer error code (spec basic/index, JSON-RPC 2.0 §4-5); the answers to the harness's own invalid requests are their probes' to judge",
	Run: func(p *packs.Pass) {
		frames := p.Server.Frames(0)
		raw := ledgerOf(p)
		raw.scan(p)
		bad, checked, dropped, theirs := 0, 0, 0, 0
		for _, f := range frames {
			if f.Kind != "json" {
				continue // stdout-jsonrpc-only reports what is not JSON
			}
			if raw.answersInvalid(f) {
				// An answer to an invalid request the harness sent (an
				// object id echoed back, say) is judged by the probe that
				// sent it, once.
				theirs++
				continue
			}
			if f.Data == nil {
				dropped++
				continue
			}
			if !jsonRPC(f.Data) {
				continue // stdout-jsonrpc-only reports what is not JSON-RPC at all
			}
			checked++
			m := parse(f)
			var problems []string
			if m.batch != nil {
				for i, e := range m.batch {
					for _, pr := range shapeProblems(e) {
						problems = append(problems, fmt.Sprintf("element %d: %s", i, pr))
					}
				}
			} else {
				problems = shapeProblems(m.fields)
			}
			if len(problems) == 0 {
				continue
			}
			bad++
			if bad > maxWireFindings {
				continue
			}
			p.Reportf("stdout line %d is a malformed JSON-RPC message: %s", f.Seq+1, strings.Join(problems, "; ")).
				Evidencef("stdout", "line %d (%d bytes): %s", f.Seq+1, f.Size, brief(f.Data))
		}
		if bad > maxWireFindings {
			p.Notef("%d further malformed messages", bad-maxWireFindings)
		}
		if dropped > 0 {
			p.Notef("%d messages were no longer held (memory bound) and were not checked", dropped)
		}
		if theirs > 0 {
			p.Notef("%d messages answered the harness's invalid requests, left to the probes that sent them", theirs)
		}
		p.Notef("%d messages checked", checked)
	},
}

// shapeProblems lists what makes one JSON-RPC message object malformed.
func shapeProblems(m map[string]json.RawMessage) []string {
	var out []string
	if string(m["jsonrpc"]) != `"2.0"` {
		out = append(out, fmt.Sprintf(`jsonrpc is %s, want "2.0"`, brief(m["jsonrpc"])))
	}
	id, hasID := m["id"]
	result, hasResult := m["result"]
	errObj, hasError := m["error"]
	if method, ok := m["method"]; ok {
		var s string
		if json.Unmarshal(method, &s) != nil || s == "" {
			out = append(out, "method is not a non-empty string")
		}
		if params, ok := m["params"]; ok && !structured(params) {
			out = append(out, "params is not an object")
		}
		if hasID && !idOK(id) {
			out = append(out, "a request's id is not a string or a number")
		}
		if hasResult || hasError {
			out = append(out, "it has both a method and a result or error")
		}
		return out
	}
	switch {
	case !hasID:
		out = append(out, "a response without an id")
	case hasResult == hasError:
		out = append(out, "a response must have exactly one of result and error")
	case hasResult && !idOK(id):
		out = append(out, "a result's id is not a string or a number")
	case hasError && !idOK(id) && string(bytes.TrimSpace(id)) != "null":
		out = append(out, "an error's id is not a string, a number or null")
	}
	if hasResult && !isObject(result) {
		out = append(out, "result is not an object")
	}
	if hasError {
		var e struct {
			Code    json.RawMessage `json:"code"`
			Message *string         `json:"message"`
		}
		if !isObject(errObj) || json.Unmarshal(errObj, &e) != nil {
			out = append(out, "error is not an object with a code and a message")
		} else {
			if !integer(e.Code) {
				out = append(out, "error.code is not an integer")
			}
			if e.Message == nil {
				out = append(out, "error.message is missing")
			}
		}
	}
	return out
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// structured reports an object or an array: what JSON-RPC allows as params.
func structured(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && (raw[0] == '{' || raw[0] == '[')
}

// idOK reports a string or a number.
func idOK(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	c := raw[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}

// integer reports a JSON number without a fraction or an exponent.
func integer(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	var n json.Number
	return len(raw) > 0 && raw[0] != '"' && json.Unmarshal(raw, &n) == nil && !bytes.ContainsAny(raw, ".eE")
}
