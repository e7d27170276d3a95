package core

import (
	"errors"
	"strings"
	"time"

	"github.com/sealmark/sealmark/packs"
)

var unknownMethod = packs.Probe{
	ID:       "CORE-UNKNOWN-METHOD",
	Name:     "unknown-method",
	Severity: packs.Medium,
	Doc:      "a request for a method the server does not have must be answered with JSON-RPC error -32601",
	Run: func(p *packs.Pass) {
		method := "sealmark/no-such-method-" + p.Token
		res, err := p.Request(method, map[string]any{})
		if err != nil {
			if !p.Server.Alive() {
				p.Reportf("the server exited on an unknown method (%s)", p.Server.ExitStatus()).Evidencef("process", "exit: %s", p.Server.ExitStatus())
				return
			}
			if errors.Is(err, packs.ErrTransport) {
				p.Reportf("an unknown method got %s", packs.Unanswered(err, p.CallTimeout)).Evidencef("response", "%v", err)
				return
			}
			p.Reportf("no answer to an unknown method within %s", p.CallTimeout).Evidencef("response", "%v", err)
			return
		}
		if res.Error == nil || res.Error.Code != -32601 {
			p.Reportf("an unknown method was answered with %s, want error -32601", res.Brief()).
				Evidencef("response", "%s answered with %s", "sealmark/no-such-method-{token}", res.Brief())
		}
	},
}

var malformedInput = packs.Probe{
	ID:       "CORE-MALFORMED-INPUT",
	Name:     "malformed-input",
	Severity: packs.High,
	CWE:      "CWE-20",
	Doc:      "a malformed line on stdin must not crash the server or stop it answering",
	Run: func(p *packs.Pass) {
		if !stdio(p) {
			return
		}
		lines := []string{`{"jsonrpc":"2.0","id":`, "this is not json " + p.Token, `{"jsonrpc":"2.0","id":"sm-bad","method":}`}
		var writeErr error
		for _, l := range lines {
			from, at := frameMark(p), time.Now()
			if writeErr = p.Server.WriteRaw([]byte(l + "\n")); writeErr != nil {
				break
			}
			// Their answers (parse-error judges those) are never taken as
			// another line's; this probe judges only that the server lives.
			r := rawRequest{line: l, null: true, invalid: true}
			if strings.Contains(l, `"sm-bad"`) {
				r.ids = ids(`"sm-bad"`)
			}
			enter(p, r, from, at).closed = true
		}
		if writeErr != nil && !p.Server.WaitExit(2*time.Second) {
			p.Reportf("the server stopped reading stdin after malformed input: %v", writeErr)
			return
		}
		method := liveness(p)
		var res *packs.Response
		var err error
		if writeErr == nil {
			res, err = p.Request(method, map[string]any{})
		}
		switch {
		case writeErr != nil || (err != nil && !p.Server.Alive()):
			p.Reportf("the server exited after malformed input (%s)", p.Server.ExitStatus()).
				Evidencef("process", "exit: %s", p.Server.ExitStatus())
		case err != nil:
			p.Reportf("the server stopped answering after %d malformed lines: %s got %s", len(lines), method, packs.Unanswered(err, p.CallTimeout)).
				Evidencef("response", "%v", err)
		default:
			p.Notef("alive: %s answered %s after %d malformed lines", method, res.Brief(), len(lines))
		}
	},
}

// liveness picks a request every server of this surface answers.
func liveness(p *packs.Pass) string {
	if p.Surface.ToolsError == "" {
		return "tools/list"
	}
	return "ping"
}
