package core

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// toolListRecorder is a session that keeps every tools/list walk it made
// (both transports' sessions do) and can walk the list once more.
type toolListRecorder interface {
	ToolLists() []packs.ToolList
	ListTools(ctx context.Context, maxPages int) ([]packs.Tool, error)
}

// listChanged is the notification a server sends when its tool list changed.
const listChanged = "notifications/tools/list_changed"

var toolsRugPull = packs.Probe{
	ID:       "CORE-TOOLS-RUG-PULL",
	Name:     "tools-rug-pull",
	Severity: packs.High,
	CWE:      "CWE-494",
	Doc: "every tools/list answer of one session must equal the first: a tool added or redefined after the client read the list " +
		"(a rug pull) is never reviewed; the harness asks once more late in the session, and a change the server announced with " +
		"notifications/tools/list_changed is still reported, saying it was announced",
	Run: func(p *packs.Pass) {
		rec, ok := p.Server.(toolListRecorder)
		if !ok {
			p.NotApplicable("this session does not record its tool lists")
			return
		}
		if p.Surface.ToolsError != "" {
			p.NotApplicable("the first tools/list did not end; tools-list reports it")
			return
		}
		if _, err := rec.ListTools(p.Ctx, 100); err != nil {
			p.Notef("the later tools/list failed: %v", err)
		}
		lists := rec.ToolLists()
		if len(lists) == 0 || !lists[0].Complete {
			p.NotApplicable("the session kept no complete first tool list")
			return
		}
		first := lists[0]
		answers := 0
		for _, l := range lists {
			answers += l.Answers
		}
		if answers < 2 {
			p.Inconclusive("no later tools/list of this session ended")
			return
		}
		announced := announcements(p.Server.Frames(0))
		reported := map[string]bool{}
		for _, l := range lists[1:] {
			if !l.Complete {
				continue
			}
			changes, _ := packs.ToolChanges(first.Tools, l.Tools, time.Now())
			said := ""
			if slices.ContainsFunc(announced, func(t time.Time) bool { return !t.After(l.At) }) {
				said = "; the server announced it with " + listChanged
			}
			for _, c := range changes {
				if reported[c] {
					continue
				}
				reported[c] = true
				f := p.Reportf("the tool list changed within the session: %s%s", c, said)
				f.Evidencef("tools/list", "answer %d of the session against its first: %s", l.Index, c)
				for _, t := range l.Tools {
					if c == fmt.Sprintf("tool %q was added", t.Name) {
						f.Evidencef("tools/list", "+ %s", toolLine(t))
					}
				}
				for _, t := range first.Tools {
					if c == fmt.Sprintf("tool %q was removed", t.Name) {
						f.Evidencef("tools/list", "- %s", toolLine(t))
					}
				}
			}
		}
		p.Notef("%d tools/list answers in this session compared with the first", answers-1)
		if len(announced) > 0 {
			p.Notef("the server sent %s %s", listChanged, times(len(announced)))
		}
	},
}

// announcements are the times of the list_changed notifications among
// frames (maxAnnouncements at most).
func announcements(frames []packs.Frame) []time.Time {
	var out []time.Time
	for _, f := range frames {
		if f.Kind != "json" {
			continue
		}
		if m := f.Head(); m != nil && string(m["method"]) == `"`+listChanged+`"` && len(out) < maxAnnouncements {
			out = append(out, f.Time)
		}
	}
	return out
}

// maxAnnouncements bounds how many list_changed notifications are kept.
const maxAnnouncements = 1000

// toolLine is one line of a tool list's diff: the name, whether it says it
// only reads, and the start of its description.
func toolLine(t packs.Tool) string {
	ro := "not read-only"
	if t.ReadOnly() {
		ro = "read-only"
	}
	return fmt.Sprintf("%s (%s): %s", t.Name, ro, brief([]byte(fmt.Sprintf("%q", t.Description))))
}
