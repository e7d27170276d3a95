package core

import (
	"encoding/json"
	"regexp"

	"github.com/sealmark/sealmark/packs"
)

var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

var toolsList = packs.Probe{
	ID:       "CORE-TOOLS-LIST",
	Name:     "tools-list",
	Severity: packs.Medium,
	Doc:      "tools/list must end its pagination, give each tool a unique valid name and an object input schema",
	Run: func(p *packs.Pass) {
		s := p.Surface
		if s.ToolsError != "" {
			p.Reportf("the tool list could not be read to its end: %s", s.ToolsError).Evidencef("response", "tools/list: %s", s.ToolsError)
		}
		seen := map[string]int{}
		for i, t := range s.Tools {
			switch {
			case t.Name == "":
				p.Reportf("tool %d has no name", i).Evidencef("tools/list", "entry %d: %s", i, brief(t.Raw))
			case !toolNamePattern.MatchString(t.Name):
				f := p.Reportf("tool name %q is not 1-128 characters of A-Z a-z 0-9 _ . -", t.Name)
				f.Severity = packs.Low
				f.Evidencef("tools/list", "entry %d name %q", i, t.Name)
			}
			if n := seen[t.Name]; n == 1 && t.Name != "" {
				p.Reportf("tool name %q appears more than once", t.Name).Evidencef("tools/list", "entry %d repeats the name %q", i, t.Name)
			}
			seen[t.Name]++
			if defect := schemaDefect(t.InputSchema); defect != "" {
				p.Reportf("tool %q: %s", t.Name, defect).Evidencef("tools/list", "inputSchema of %q: %s", t.Name, brief(t.InputSchema))
			}
		}
		p.Notef("%d tools listed", len(s.Tools))
	},
}

// schemaDefect says what makes an input schema something other than a JSON
// Schema object of type "object", or "" when it is one.
func schemaDefect(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "inputSchema is missing or null; it must be a JSON Schema object"
	}
	var s map[string]json.RawMessage
	if json.Unmarshal(raw, &s) != nil {
		return "inputSchema is not a JSON object"
	}
	if string(s["type"]) != `"object"` {
		return `inputSchema has no "type": "object"`
	}
	return ""
}

var bogusCursor = packs.Probe{
	ID:       "CORE-BOGUS-CURSOR",
	Name:     "bogus-cursor",
	Severity: packs.Low,
	Doc:      "tools/list with a cursor the server never issued should get error -32602 (spec 2025-11-25 server/utilities/pagination#error-handling)",
	Run: func(p *packs.Pass) {
		if p.Surface.ToolsError != "" {
			p.Inconclusive("tools/list did not work on the first try; tools-list reports it")
			return
		}
		if !ready(p) {
			return
		}
		res, err := p.Request("tools/list", map[string]any{"cursor": "sealmark-bogus-cursor"})
		switch {
		case err != nil && !p.Server.Alive():
			p.Reportf("the server exited on tools/list with a bogus cursor (%s)", exitOf(p)).
				Evidencef("process", "exit: %s", exitOf(p)).Severity = packs.High
		case err != nil:
			p.Reportf("tools/list with a bogus cursor got %s", packs.Unanswered(err, p.CallTimeout)).Evidencef("response", "%v", err)
		case res.Error == nil:
			p.Reportf("tools/list with a cursor the server never issued was answered with a page, want error -32602").
				Evidencef("response", "tools/list cursor \"sealmark-bogus-cursor\": %s", brief(res.Result))
		case res.Error.Code != -32602:
			p.Reportf("tools/list with a bogus cursor was answered with %s, want -32602", oneLine(res.Brief())).
				Evidencef("response", "tools/list cursor \"sealmark-bogus-cursor\": %s", oneLine(res.Brief()))
		}
	},
}
