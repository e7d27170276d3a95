package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/startvalue"
	"github.com/sealmark/sealmark/packs"
)

// driftProbe compares the tool list of the drift check's start with the
// first start's.
func (e *Engine) driftProbe() packs.Probe {
	return packs.Probe{
		ID:       driftID,
		Name:     driftName,
		Severity: packs.High,
		CWE:      "CWE-494",
		Doc:      "the tool list (names, descriptions, schemas) of a later start must equal the first start's; values computed at start (times, ids, nonces) aside",
		Run: func(p *packs.Pass) {
			e.mu.Lock()
			first := e.surface
			e.mu.Unlock()
			if first == nil || first == p.Surface {
				p.NotApplicable("no first start to compare with")
				return
			}
			changes, ignored := drift(first.Tools, p.Surface.Tools, time.Now())
			for _, d := range changes {
				p.Reportf("the tool list changed since the first start: %s", d).Evidencef("tools/list", "%s", d)
			}
			if len(ignored) > 0 {
				shown := ignored[:min(len(ignored), maxIgnoredShown)]
				more := ""
				if len(ignored) > len(shown) {
					more = fmt.Sprintf("; and %d more", len(ignored)-len(shown))
				}
				p.Notef("values that differ between the starts but are computed at start (a time, an epoch near now, a uuid or random id, a hex nonce) are no change and were ignored: %s%s", strings.Join(shown, "; "), more)
			}
		},
	}
}

// maxIgnoredShown bounds how many ignored values the drift note names.
const maxIgnoredShown = 10

// checkDrift is the run-level drift check, reported as core's last probe
// (tool-drift): it starts the server once more, without canaries, and
// compares its tool list with the first start's, so a server that changes
// its tools after it was approved (a rug pull) is caught, whichever packs
// run. The result goes to the report's pack entry of core (idx).
func (e *Engine) checkDrift(ctx context.Context, core packs.Pack, idx int) report.Probe {
	probe := e.driftProbe()
	pr, err := e.startPack(ctx, core, packs.Start{}, idx)
	if err != nil {
		res := report.Probe{ID: probe.ID, Name: probe.Name, Doc: probe.Doc, Severity: probe.Severity, CWE: probe.CWE,
			Verdict: packs.Inconclusive, Reason: "the second start, which the drift check compares, failed: " + err.Error()}
		e.record(idx, core.Name, res)
		return res
	}
	defer pr.Close()
	return pr.runProbe(ctx, probe)
}

// drift lists the differences between two tool lists' definitions, in a
// stable order, and where the two differ only in values computed at start
// (see startvalue.Kind), which are no change: "tool: where (what)". now is the
// time the epoch numbers are compared with.
func drift(before, after []packs.Tool, now time.Time) (changes, ignored []string) {
	index := func(ts []packs.Tool) map[string]packs.Tool {
		m := map[string]packs.Tool{}
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
			changes = append(changes, fmt.Sprintf("the description of %q changed: %q → %q", name, cut(old.Description), cut(t.Description)))
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
	a, errA := decode(x)
	b, errB := decode(y)
	if errA != nil || errB != nil {
		return string(x) == string(y)
	}
	return c.same("inputSchema", a, b)
}

func decode(raw json.RawMessage) (any, error) {
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

// cut keeps a quoted description short in a message.
func cut(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
