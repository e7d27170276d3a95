package packs

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/startvalue"
)

// Tool lists compared: two starts' (the engine's drift check) or two
// answers of one session (core's tools-rug-pull).

// ToolList is one tool list a session's tools/list walks gave.
type ToolList struct {
	Tools []Tool
	// Index numbers the walk that first gave it, from 1 for the
	// session's first.
	Index int
	// At is when that walk ended.
	At time.Time
	// Complete says the walk reached a page without nextCursor.
	Complete bool
	// Answers counts the walks in a row that gave this list.
	Answers int
}

// ToolChanges lists the differences between two tool lists' definitions, in a
// stable order, and where the two differ only in values computed at start
// (see startvalue.Kind), which are no change: "tool: where (what)". now is the
// time the epoch numbers are compared with.
func ToolChanges(before, after []Tool, now time.Time) (changes, ignored []string) {
	index := func(ts []Tool) map[string]Tool {
		m := map[string]Tool{}
		for _, t := range ts {
			m[t.Name] = t
		}
		return m
	}
	b, a := index(before), index(after)
	for name, t := range a {
		old, ok := b[name]
		if !ok {
			changes = append(changes, fmt.Sprintf("tool %q was added", name))
			continue
		}
		var seen []string
		cmp := comparer{now: now, seen: &seen}
		switch {
		case !cmp.sameText("description", old.Description, t.Description):
			changes = append(changes, fmt.Sprintf("the description of %q changed: %q → %q", name, cutText(old.Description), cutText(t.Description)))
		case !cmp.sameJSON(old.InputSchema, t.InputSchema):
			changes = append(changes, fmt.Sprintf("the input schema of %q changed", name))
		case old.ReadOnly() != t.ReadOnly():
			changes = append(changes, fmt.Sprintf("the annotations of %q changed (read-only %v → %v)", name, old.ReadOnly(), t.ReadOnly()))
		default:
			for _, s := range seen {
				ignored = append(ignored, name+": "+s)
			}
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			changes = append(changes, fmt.Sprintf("tool %q was removed", name))
		}
	}
	sort.Strings(changes)
	sort.Strings(ignored)
	return changes, ignored
}

// comparer compares two definitions, taking two values that differ but are
// both computed at start as the same, and noting where (seen).
type comparer struct {
	now  time.Time
	seen *[]string
}

// sameJSON compares two input schemas as JSON values; one that is not JSON
// is compared byte for byte.
func (c comparer) sameJSON(x, y json.RawMessage) bool {
	a, errA := decodeNumbers(x)
	b, errB := decodeNumbers(y)
	if errA != nil || errB != nil {
		return string(x) == string(y)
	}
	return c.same("inputSchema", a, b)
}

func decodeNumbers(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// same compares two decoded JSON values at where.
func (c comparer) same(where string, a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok {
				return false
			}
			if slices.Contains(startvalue.FixedKeys, k) {
				if !reflect.DeepEqual(v, w) {
					return false
				}
				continue
			}
			if !c.same(where+"."+k, v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !c.same(fmt.Sprintf("%s[%d]", where, i), x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && c.sameText(where, x, y)
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		if startvalue.EpochNear(string(x), c.now) && startvalue.EpochNear(string(y), c.now) {
			*c.seen = append(*c.seen, where+" (an epoch time)")
			return true
		}
		return false
	}
	return reflect.DeepEqual(a, b)
}

// sameText compares two strings: equal, or each computed at start as a
// whole, or the same words but for words each computed at start.
func (c comparer) sameText(where, x, y string) bool {
	if x == y {
		return true
	}
	if kx, ky := startvalue.Kind(x, c.now), startvalue.Kind(y, c.now); kx != "" && kx == ky {
		*c.seen = append(*c.seen, fmt.Sprintf("%s (%s)", where, kx))
		return true
	}
	wx, wy := strings.Fields(x), strings.Fields(y)
	if len(wx) != len(wy) {
		return false
	}
	var kinds []string
	for i := range wx {
		if wx[i] == wy[i] {
			continue
		}
		lx, ax, tx := startvalue.TrimWord(wx[i])
		ly, ay, ty := startvalue.TrimWord(wy[i])
		k := startvalue.Kind(ax, c.now)
		if k == "" || k != startvalue.Kind(ay, c.now) || lx != ly || tx != ty {
			return false
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	*c.seen = append(*c.seen, fmt.Sprintf("%s (%s in its text)", where, strings.Join(kinds, ", ")))
	return true
}

// cutText keeps a quoted description short in a message.
func cutText(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
