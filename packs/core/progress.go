package core

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// progressWait is how long the progress probe waits for notifications that
// trail a response, once the server has shown it reports progress, when
// its barrier request got no answer.
const progressWait = 100 * time.Millisecond

var progress = packs.Probe{
	ID:       "CORE-PROGRESS",
	Name:     "progress",
	Severity: packs.High,
	Doc:      "progress notifications must carry a token the client sent, increase with each notification and stop once the request is answered (spec 2025-11-25 basic/utilities/progress)",
	Run: func(p *packs.Pass) {
		r := sweep(p)
		if len(r.calls) == 0 {
			p.NotApplicable("the sweep called no tool, so no call carried a progress token")
			return
		}
		notes := progressNotes(p, r.from)
		if len(notes) == 0 {
			p.NotApplicable("no tool reported progress: no notifications/progress for the %d tool calls that carried a progress token", len(r.calls))
			return
		}
		// Over stdio, notifications that trail a response were written
		// before the answer to a request sent now (a server writes its
		// stdout in order); elsewhere, or without that answer, a short
		// wait stands in.
		if p.Server.Transport() != "stdio" || barrier(p) != nil {
			time.Sleep(progressWait)
		}
		notes = progressNotes(p, r.from)
		calls := map[string]sweepCall{}
		for _, c := range r.calls {
			calls[c.token] = c
		}
		answered := answerSeqs(p, r)
		last := map[string]float64{}
		seen := map[string]bool{}
		once := func(key string) bool {
			if seen[key] {
				return false
			}
			seen[key] = true
			return true
		}
		for _, n := range notes {
			evidence := fmt.Sprintf("line %d: %s", n.frame.Seq+1, brief(n.frame.Data))
			c, ours := calls[n.token]
			if !ours {
				if once("token " + n.token) {
					p.Reportf("a progress notification carries token %s, which the harness never sent", n.token).Evidencef("stdout", "%s", evidence)
				}
				continue
			}
			if prev, ok := last[n.token]; ok && n.progress <= prev && once("order "+n.token) {
				p.Reportf("progress for tools/call %s went from %v to %v; it must increase", c.tool, prev, n.progress).Evidencef("stdout", "%s", evidence)
			}
			last[n.token] = n.progress
			if seq, ok := answered[n.token]; ok && n.frame.Seq > seq && once("late "+n.token) {
				p.Reportf("a progress notification for tools/call %s came after its response", c.tool).
					Evidencef("stdout", "response on line %d, then %s", seq+1, evidence)
			}
		}
		p.Notef("%d progress notifications for %d tokens", len(notes), len(last))
	},
}

// progressNote is one notifications/progress.
type progressNote struct {
	frame    packs.Frame
	token    string // the token as JSON text, quotes removed from a string
	progress float64
}

// progressNotes lists the progress notifications from frame from on.
func progressNotes(p *packs.Pass, from int) []progressNote {
	var out []progressNote
	for _, f := range p.Server.Frames(from) {
		m := parse(f)
		if string(m.fields["method"]) != `"notifications/progress"` {
			continue
		}
		var params struct {
			Token    json.RawMessage `json:"progressToken"`
			Progress float64         `json:"progress"`
		}
		_ = json.Unmarshal(m.fields["params"], &params)
		token := string(params.Token)
		var s string
		if json.Unmarshal(params.Token, &s) == nil {
			token = s
		}
		out = append(out, progressNote{frame: f, token: token, progress: params.Progress})
	}
	return out
}

// answerSeqs maps the progress token of each answered sweep call to the
// frame of its response.
func answerSeqs(p *packs.Pass, r *sweepResult) map[string]int {
	out := map[string]int{}
	for _, f := range p.Server.Frames(r.from) {
		m := parse(f)
		if m.fields == nil || m.fields["method"] != nil {
			continue
		}
		for _, c := range r.calls {
			if _, done := out[c.token]; !done && c.answered && sameID(m.id(), c.id) {
				out[c.token] = f.Seq
			}
		}
	}
	return out
}
