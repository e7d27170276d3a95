package core

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/sealmark/sealmark/packs"
)

var secretEcho = packs.Probe{
	ID:       "CORE-SECRET-ECHO",
	Name:     "secret-echo",
	Severity: packs.Critical,
	CWE:      "CWE-200",
	Doc:      "the canary secrets in the server's environment must never appear in its tool list, its responses or its log",
	Run: func(p *packs.Pass) {
		if len(p.Canaries) == 0 {
			p.NotApplicable("this start got no canary secrets (only the first start of a run does)")
			return
		}
		if p.Server.Alive() {
			sweep(p) // give the tools a chance to return what they hold
		}
		seen := map[string]bool{}
		report := func(c packs.Secret, observer, where string) {
			key := c.Name + "\x00" + where
			if seen[key] {
				return
			}
			seen[key] = true
			p.Reportf("%s echoed in %s", c.Name, where).Evidencef(observer, "%s contains the value of %s", where, c.Name)
		}
		frames := p.Server.Frames(0)
		for _, f := range frames {
			for _, c := range p.Canaries {
				if !bytes.Contains(f.Data, []byte(c.Value)) {
					continue
				}
				observer, where := "stdout", fmt.Sprintf("stdout line %d", f.Seq+1)
				if what := p.Server.Describe(f); what != "" {
					observer, where = "response", "the response to "+what
				} else if m := notificationMethod(f.Data); m != "" {
					observer, where = "stdout", "the server's "+m+" message"
				}
				report(c, observer, where)
			}
		}
		log := p.Server.Log()
		for _, c := range p.Canaries {
			if bytes.Contains(log, []byte(c.Value)) {
				report(c, "serverlog", "the server log (stderr)")
			}
		}
		p.Notef("scanned %d stdout lines and %d bytes of server log for %d canaries", len(frames), len(log), len(p.Canaries))
	},
}

func notificationMethod(data []byte) string {
	var m struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(data, &m) != nil {
		return ""
	}
	return m.Method
}

// jsonRPC reports whether a JSON line is a JSON-RPC 2.0 message: an object
// with "jsonrpc": "2.0" and a method, or an id with a result or an error; or
// a batch response, a non-empty array of such objects.
func jsonRPC(data []byte) bool {
	if d := bytes.TrimSpace(data); len(d) > 0 && d[0] == '[' {
		var elems []json.RawMessage
		if json.Unmarshal(d, &elems) != nil || len(elems) == 0 {
			return false
		}
		for _, e := range elems {
			if len(bytes.TrimSpace(e)) == 0 || bytes.TrimSpace(e)[0] != '{' || !jsonRPC(e) {
				return false
			}
		}
		return true
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		return false
	}
	_, method := m["method"]
	_, id := m["id"]
	_, result := m["result"]
	_, errObj := m["error"]
	return method || (id && (result != errObj))
}
