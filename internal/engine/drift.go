package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/sealmark/sealmark/internal/report"
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
		Doc:      "the tool list (names, descriptions, schemas) of a later start must equal the first start's",
		Run: func(p *packs.Pass) {
			e.mu.Lock()
			first := e.surface
			e.mu.Unlock()
			if first == nil || first == p.Surface {
				p.NotApplicable("no first start to compare with")
				return
			}
			for _, d := range drift(first.Tools, p.Surface.Tools) {
				p.Reportf("the tool list changed since the first start: %s", d).Evidencef("tools/list", "%s", d)
			}
		},
	}
}

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
	return pr.RunProbe(ctx, probe)
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
