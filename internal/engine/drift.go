package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/sealmark/sealmark/packs"
)

// driftProbe compares the tool list of a later start with the first
// start's: a server that changes its tools after it was approved (a rug
// pull) is caught on the start that changed them.
func (e *Engine) driftProbe() packs.Probe {
	return packs.Probe{
		ID:       "CORE-DRIFT",
		Name:     "tool-drift",
		Severity: packs.High,
		CWE:      "CWE-494",
		Doc:      "the tool list (names, descriptions, schemas) of every later start must equal the first start's",
		Run: func(p *packs.Pass) {
			e.mu.Lock()
			first := e.surface
			e.mu.Unlock()
			if first == nil || first == p.Surface {
				p.NotApplicable("this is the first start: nothing to compare with")
				return
			}
			for _, d := range drift(first.Tools, p.Surface.Tools) {
				p.Reportf("the tool list changed since the first start: %s", d).Evidencef("tools/list", "%s", d)
			}
		},
	}
}

// drift lists the differences between two tool lists, in a stable order.
func drift(before, after []packs.Tool) []string {
	index := func(ts []packs.Tool) map[string]packs.Tool {
		m := map[string]packs.Tool{}
		for _, t := range ts {
			m[t.Name] = t
		}
		return m
	}
	b, a := index(before), index(after)
	var out []string
	for name, t := range a {
		old, ok := b[name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("tool %q was added", name))
		case old.Description != t.Description:
			out = append(out, fmt.Sprintf("the description of %q changed: %q → %q", name, cut(old.Description), cut(t.Description)))
		case !sameJSON(old.InputSchema, t.InputSchema):
			out = append(out, fmt.Sprintf("the input schema of %q changed", name))
		case old.ReadOnly() != t.ReadOnly():
			out = append(out, fmt.Sprintf("the annotations of %q changed (read-only %v → %v)", name, old.ReadOnly(), t.ReadOnly()))
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			out = append(out, fmt.Sprintf("tool %q was removed", name))
		}
	}
	sort.Strings(out)
	return out
}

func sameJSON(x, y json.RawMessage) bool {
	var a, b any
	if json.Unmarshal(x, &a) != nil || json.Unmarshal(y, &b) != nil {
		return bytes.Equal(x, y)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// cut keeps a quoted description short in a message.
func cut(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// Probes returns what this start runs: on every start after the first, the
// drift check first; then the pack's own probes when the pack applies.
func (pr *PackRun) Probes() []packs.Probe {
	pr.e.mu.Lock()
	first := pr.e.surface == pr.surface
	pr.e.mu.Unlock()
	var out []packs.Probe
	if !first {
		out = append(out, pr.e.driftProbe())
	}
	if ok, _ := pr.Applies(); ok {
		out = append(out, pr.pack.Probes...)
	}
	return out
}
