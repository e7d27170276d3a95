package fs

import (
	"fmt"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// readProbe is the passive probe of one form: every read, read-many and
// stat tool on the form's files, every list and search tool on its
// directories (and, for tree and search tools, on the walks).
func readProbe(f form, hints []Hint) packs.Probe {
	return packs.Probe{
		ID:       "FS-READ-" + f.id,
		Name:     "read-" + f.key,
		Severity: packs.Critical,
		CWE:      f.cwe,
		Doc:      fmt.Sprintf("read, stat, list and search tools must not reach outside the root through %s (%s)", f.what, f.class),
		Run: func(p *packs.Pass) {
			r := start(p, f)
			if r == nil {
				return
			}
			tools := r.tools(hints, Read, ReadMany, Stat, List, Search)
			if len(tools) == 0 && len(r.unprobed) == 0 && !r.dead {
				p.NotApplicable("no tool reads, stats, lists or searches a path")
				return
			}
			r.probe(tools, r.reads)
			r.finish()
		},
	}
}

// reads tries every path of the form that fits the tool's role.
func (r *run) reads(t Tool) {
	var tmpls []string
	switch t.Role {
	case Read, ReadMany, Stat:
		tmpls = r.form.files
	case List:
		tmpls = r.form.dirs
		if t.Recursive {
			tmpls = append(tmpls[:len(tmpls):len(tmpls)], r.form.walks...)
		}
	case Search:
		tmpls = append(r.form.dirs[:len(r.form.dirs):len(r.form.dirs)], r.form.walks...)
	}
	for _, tmpl := range tmpls {
		tg, ok := r.arg(t, expand(r.sb, tmpl, ""))
		if !ok || r.dead {
			continue
		}
		fill := map[string]any{t.Path: tg.value}
		desc := describe(t, t.Path, tg.shown)
		if t.Role == ReadMany {
			fill[t.Path] = []any{tg.value}
			desc = fmt.Sprintf("%s(%s=%s)", t.Name, t.Path, jsonList(tg.shown))
		}
		if t.Role == Search && t.Pattern != "" {
			fill[t.Pattern] = r.patterns[t.Name]
			desc = describe(t, t.Path, tg.shown, t.Pattern, r.patterns[t.Name])
		}
		res := r.call(t, fill, desc)
		if res == nil {
			continue
		}
		r.judgeRead(t, res, fill, desc, reaches(r.sb, tmpl))
	}
}

// judgeRead reports canary content (critical), and canary names or sizes
// (high) in a response.
func (r *run) judgeRead(t Tool, res *packs.Response, fill map[string]any, desc string, reached packs.Secret) {
	if leaked := secretsIn(r.sb, res, fill); len(leaked) > 0 {
		r.leak(t, desc, leaked)
		return
	}
	switch t.Role {
	case List, Search:
		if names := namesIn(r.sb, res, fill); len(names) > 0 {
			f := r.p.Reportf("%s listed %s, outside the root", desc, strings.Join(names, ", "))
			f.Severity = packs.High
			f.Evidencef("response", "the result of %s names %s", t.Name, strings.Join(names, ", "))
		}
	case Stat:
		if reached.Name != "" && sizeIn(res, len(reached.Value)) {
			f := r.p.Reportf("%s returned the metadata of %s, outside the root", desc, reached.Name)
			f.Severity, f.Confidence = packs.High, packs.ConfidenceMedium
			f.Evidencef("response", "the result of %s gives the size of %s (%d bytes) and is not an error", t.Name, reached.Name, len(reached.Value))
		}
	}
}

// leak reports canary content in a response: critical whatever the probe.
func (r *run) leak(t Tool, desc string, leaked []string) {
	f := r.p.Reportf("%s returned the content of %s, outside the root", desc, strings.Join(leaked, ", "))
	f.Severity = packs.Critical
	f.Evidencef("response", "the result of %s contains the canary content of %s", t.Name, strings.Join(leaked, ", "))
}
