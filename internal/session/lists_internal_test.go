package session

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/packs"
)

// TestToolListsKeepsChanges walks tools/list as a session sees it: a walk
// of two pages, the same list again (one more answer of it), a changed
// list (kept), a page with a cursor no walk began (ignored), an error
// (nothing kept).
func TestToolListsKeepsChanges(t *testing.T) {
	page := func(next string, names ...string) *packs.Response {
		var tools []map[string]any
		for _, n := range names {
			tools = append(tools, map[string]any{"name": n, "description": "d " + n, "inputSchema": map[string]any{"type": "object"}})
		}
		r := map[string]any{"tools": tools}
		if next != "" {
			r["nextCursor"] = next
		}
		b, _ := json.Marshal(r)
		return &packs.Response{Result: b}
	}
	var l toolLists
	l.see("tools/list", map[string]any{}, page("p2", "a"))
	l.see("tools/list", map[string]any{"cursor": "p2"}, page("", "b"))
	l.see("tools/list", map[string]any{}, page("p2", "a"))
	l.see("tools/list", map[string]any{"cursor": "p2"}, page("", "b"))
	l.see("tools/call", map[string]any{}, page("", "x"))
	l.see("tools/list", map[string]any{}, page("", "a", "b", "evil"))
	l.see("tools/list", map[string]any{"cursor": "nowhere"}, page("", "ghost"))
	l.see("tools/list", map[string]any{}, &packs.Response{Error: &packs.RPCError{Code: -32603}})
	got := l.copyOut()
	if len(got) != 2 {
		t.Fatalf("kept %d lists, want 2: %+v", len(got), got)
	}
	if got[0].Index != 1 || got[0].Answers != 2 || !got[0].Complete || len(got[0].Tools) != 2 {
		t.Errorf("first list: %+v, want walk 1, 2 answers, complete, 2 tools", got[0])
	}
	if got[1].Index != 3 || got[1].Answers != 1 || len(got[1].Tools) != 3 {
		t.Errorf("second list: %+v, want walk 3, 1 answer, 3 tools", got[1])
	}
	for range 2 * maxToolLists {
		l.see("tools/list", map[string]any{}, page("", "a", time.Now().String()))
	}
	if n := len(l.copyOut()); n != maxToolLists {
		t.Errorf("kept %d lists, want at most %d", n, maxToolLists)
	}
}

// TestNoteCounterBounded counts a flood in O(1): per method, the peak
// within one second, and methods past the cap together.
func TestNoteCounterBounded(t *testing.T) {
	var c noteCounter
	at := time.Unix(1000, 0)
	for i := range 5000 {
		c.see("notifications/message", at.Add(time.Duration(i)*100*time.Microsecond)) // 10,000 a second
	}
	c.see("notifications/message", at.Add(3*time.Second))
	for i := range 2 * maxNoteMethods {
		c.see("x/"+string(rune('a'+i)), at)
	}
	got := c.counts()
	if len(got) != maxNoteMethods+1 {
		t.Fatalf("%d methods counted, want %d", len(got), maxNoteMethods+1)
	}
	m := got[0]
	if m.Method != "notifications/message" || m.Count != 5001 || m.PeakPerSecond != 5000 || !m.Last.Equal(at.Add(3*time.Second)) {
		t.Errorf("got %+v, want 5001 notifications/message with a peak of 5000 a second", m)
	}
	if last := got[len(got)-1]; last.Method != "(other)" || last.Count != maxNoteMethods+1 {
		t.Errorf("got %+v, want the methods past the cap counted as (other)", last)
	}
}

// TestDepthLimitsAgree: the depth the framer refuses past is the one the
// probes name.
func TestDepthLimitsAgree(t *testing.T) {
	if packs.MaxJSONDepth != launch.MaxDepth {
		t.Errorf("packs.MaxJSONDepth %d, launch.MaxDepth %d", packs.MaxJSONDepth, launch.MaxDepth)
	}
}
