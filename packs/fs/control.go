package fs

import (
	"os"
	"path/filepath"
	"strings"
)

// searchPatterns are the patterns a search control tries, each with the
// pattern the probe then uses to list everything: a glob ("*", then "**"
// below), or a substring or regular expression (".").
var searchPatterns = [][2]string{{"*", "**"}, {".", "."}}

// control makes a benign call the tool must get right inside the root: a
// read of ok.txt returns its token, a listing names it, a write lands in
// the root. False (recorded) when the tool failed, so its silence about
// escapes means nothing.
func (r *run) control(t Tool) bool {
	ok := target{shown: "{sandbox}/ok.txt", value: r.rootPath("ok.txt")}
	dir := target{shown: "{sandbox}", value: r.rootPath("")}
	if r.form.relative {
		ok.shown, dir.shown = ok.value, dir.value
	}
	okArg, good := r.arg(t, ok)
	dirArg, _ := r.arg(t, dir)
	if !good {
		r.p.Notef("%s takes URIs, which cannot be relative: not probed with relative paths", t.Name)
		return false
	}
	desc := describe(t, t.Path, okArg.shown)
	switch t.Role {
	case Read, Stat:
		res := r.call(t, map[string]any{t.Path: okArg.value}, "control "+desc)
		if res == nil {
			return false
		}
		if t.Role == Read && !holds(res.Body(), r.sb.OKToken) || t.Role == Stat && !sizeIn(res, len(r.sb.OKToken)) {
			r.controlFailed(t, "%s did not return what root/ok.txt holds (%s)", desc, res.Brief())
			return false
		}
	case ReadMany:
		res := r.call(t, map[string]any{t.Path: []any{okArg.value}}, "control "+t.Name)
		if res == nil {
			return false
		}
		if !holds(res.Body(), r.sb.OKToken) {
			r.controlFailed(t, "%s(%s=%s) did not return what root/ok.txt holds (%s)", t.Name, t.Path, jsonList(okArg.shown), res.Brief())
			return false
		}
	case List:
		desc = describe(t, t.Path, dirArg.shown)
		res := r.call(t, map[string]any{t.Path: dirArg.value}, "control "+desc)
		if res == nil {
			return false
		}
		if res.Refused() || !strings.Contains(string(res.Body()), "ok.txt") {
			r.controlFailed(t, "%s did not list ok.txt (%s)", desc, res.Brief())
			return false
		}
	case Search:
		return r.searchControl(t, dirArg)
	default:
		return r.writeControl(t)
	}
	return true
}

// searchControl finds a pattern that makes the tool list ok.txt.
func (r *run) searchControl(t Tool, dir target) bool {
	for _, pp := range searchPatterns {
		fill := map[string]any{t.Path: dir.value}
		if t.Pattern != "" {
			fill[t.Pattern] = pp[0]
		}
		res := r.call(t, fill, "control "+describe(t, t.Path, dir.shown))
		if res == nil {
			return false
		}
		if !res.Refused() && strings.Contains(string(res.Body()), "ok.txt") {
			r.patterns[t.Name] = pp[1]
			return true
		}
		if t.Pattern == "" {
			break
		}
	}
	r.controlFailed(t, "%s found no ok.txt with the patterns %q and %q", describe(t, t.Path, dir.shown), searchPatterns[0][0], searchPatterns[1][0])
	return false
}

// writeControl makes the tool change something inside the root and checks
// the change landed there.
func (r *run) writeControl(t Tool) bool {
	defer r.restoreNow(nil)
	top, err := os.OpenRoot(r.sb.Top)
	if err != nil {
		r.cannotControl(t, "cannot open the sandbox: %v", err)
		return false
	}
	defer top.Close()
	name := r.name("ctl")
	in := func(n string) string { return filepath.Join("root", n) }
	seed := func(n string) bool {
		if err := top.WriteFile(in(n), []byte("sealmark-control-"+r.p.Token), 0o600); err != nil {
			r.cannotControl(t, "cannot seed %s: %v", n, err)
			return false
		}
		return true
	}
	var fill map[string]any
	var check func() bool
	switch t.Role {
	case Write:
		fill = map[string]any{t.Path: r.rootPath(name)}
		if t.Content != "" {
			fill[t.Content] = "sealmark-" + r.p.Token
		}
		check = func() bool { _, err := top.Lstat(in(name)); return err == nil }
	case Edit:
		if t.Old == "" {
			r.cannotControl(t, "cannot tell which arguments carry the old and the new text")
			return false
		}
		if !seed(name) {
			return false
		}
		fill = map[string]any{t.Path: r.rootPath(name)}
		for k, v := range editFill(t, "sealmark-control-"+r.p.Token, "sealmark-edited-"+r.p.Token) {
			fill[k] = v
		}
		check = func() bool {
			b, err := top.ReadFile(in(name))
			return err == nil && strings.Contains(string(b), "sealmark-edited-")
		}
	case Mkdir:
		fill = map[string]any{t.Path: r.rootPath(name)}
		check = func() bool { fi, err := top.Lstat(in(name)); return err == nil && fi.IsDir() }
	case Move:
		if !seed(name) {
			return false
		}
		dst := name + "-moved"
		fill = map[string]any{t.Path: r.rootPath(name), t.To: r.rootPath(dst)}
		check = func() bool { _, err := top.Lstat(in(dst)); return err == nil }
	case Delete:
		if !seed(name) {
			return false
		}
		fill = map[string]any{t.Path: r.rootPath(name)}
		check = func() bool { _, err := top.Lstat(in(name)); return err != nil }
	case Link:
		fill = map[string]any{t.Path: r.rootPath(name), t.To: "ok.txt"}
		check = func() bool { fi, err := top.Lstat(in(name)); return err == nil && fi.Mode()&os.ModeSymlink != 0 }
	default:
		return false
	}
	keys := []string{t.Path}
	if t.Role == Move {
		keys = append(keys, t.To)
	}
	for _, k := range keys {
		s := fill[k].(string)
		tg, good := r.arg(t, target{shown: s, value: s})
		if !good {
			r.p.Notef("%s takes URIs, which cannot be relative: not probed with relative paths", t.Name)
			return false
		}
		fill[k] = tg.value
	}
	res := r.call(t, fill, "control "+t.Name)
	if res == nil {
		return false
	}
	if res.Refused() || !check() {
		r.controlFailed(t, "a %s inside the root did not take effect (%s)", t.Role, res.Brief())
		return false
	}
	return true
}

// editFill is the edit arguments replacing old with neu.
func editFill(t Tool, old, neu string) map[string]any {
	if t.Edits != "" {
		return map[string]any{t.Edits: []any{map[string]any{t.Old: old, t.New: neu}}}
	}
	return map[string]any{t.Old: old, t.New: neu}
}
