package session

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// maxToolLists bounds how many distinct tool lists a session keeps: the
// first, and the latest ones after it.
const maxToolLists = 8

// toolLists records every tools/list walk the session's requests made, so
// that a list that changes within the session is seen (core's
// tools-rug-pull compares each with the first). A request without a
// cursor begins a walk; one with a cursor adds its page to the walk in
// progress. A walk that gives the list kept last counts as one more answer
// of it; one that differs is kept as a new list.
type toolLists struct {
	mu    sync.Mutex
	kept  []packs.ToolList
	walks int             // walks begun
	cur   *packs.ToolList // the walk in progress
}

// see records what one request got, if it was a tools/list.
func (l *toolLists) see(method string, params any, resp *packs.Response) {
	if method != "tools/list" || resp == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	cursor := ""
	if m, ok := params.(map[string]any); ok {
		cursor, _ = m["cursor"].(string)
	}
	var tools []packs.Tool
	next, err := "", error(nil)
	if resp.Error == nil {
		tools, next, err = pageTools(resp.Result)
	}
	switch {
	case cursor == "":
		l.walks++
		l.cur = &packs.ToolList{Index: l.walks}
	case l.cur == nil:
		return // a page of no walk this session began
	}
	if resp.Error != nil || err != nil {
		l.keep(*l.cur) // ended without its last page
		l.cur = nil
		return
	}
	l.cur.Tools = append(l.cur.Tools, tools...)
	if next == "" {
		l.cur.Complete = true
		l.keep(*l.cur)
		l.cur = nil
	}
}

// keep adds a walk that ended: the first always; a later one only when it
// is complete, and as one more answer of the last list kept when it equals
// it.
func (l *toolLists) keep(tl packs.ToolList) {
	tl.At, tl.Answers = time.Now(), 1
	if len(l.kept) == 0 {
		l.kept = append(l.kept, tl)
		return
	}
	if !tl.Complete {
		return
	}
	last := &l.kept[len(l.kept)-1]
	if last.Complete {
		if changes, _ := packs.ToolChanges(last.Tools, tl.Tools, tl.At); len(changes) == 0 {
			last.Answers++
			return
		}
	}
	if len(l.kept) == maxToolLists {
		l.kept = l.kept[:len(l.kept)-1]
	}
	l.kept = append(l.kept, tl)
}

// copyOut returns the lists kept, oldest first.
func (l *toolLists) copyOut() []packs.ToolList {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]packs.ToolList, len(l.kept))
	for i, tl := range l.kept {
		tl.Tools = append([]packs.Tool(nil), tl.Tools...)
		out[i] = tl
	}
	return out
}

// pageTools reads one tools/list result: its tools, each kept as sent
// (one with a malformed schema keeps at least its name), and its
// nextCursor.
func pageTools(result json.RawMessage) (tools []packs.Tool, next string, err error) {
	var r struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor *string           `json:"nextCursor"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return nil, "", err
	}
	for _, raw := range r.Tools {
		var t packs.Tool
		if err := json.Unmarshal(raw, &t); err != nil {
			// Keep what can be read: the name at least.
			var named struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(raw, &named)
			t = packs.Tool{Name: named.Name}
		}
		t.Raw = raw
		tools = append(tools, t)
	}
	if r.NextCursor != nil {
		next = *r.NextCursor
	}
	return tools, next, nil
}
