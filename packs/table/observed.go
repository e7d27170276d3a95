package table

import (
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/internal/programs"
)

// outlivedGrace is how long a process started during the call may take to
// exit after the answer before it counts as outliving the call.
var outlivedGrace = time.Second

// judgeObserved judges one expectation that reads what the observers saw.
func (c *call) judgeObserved(e Expect) {
	switch e.kind {
	case kindNoFilesOutside:
		for _, r := range c.of(observers.KindFile) {
			if outsideRoot(r.Data[observers.KeyPath]) || (r.Data[observers.KeyFrom] != "" && outsideRoot(r.Data[observers.KeyFrom])) {
				c.failf("a file changed outside root/: %s", r.Summary).Evidencef(r.Observer, "%s", r.Summary)
			}
		}
	case kindFileChanges:
		c.fileChanges(e)
	case kindNoConnection:
		for _, r := range c.of(observers.KindConnection) {
			c.failf("a connection reached the loopback listener: %s", request(r, "target")).Evidencef(r.Observer, "%s", r.Summary)
		}
		for _, r := range c.of(observers.KindUpstream) {
			c.failf("a request reached the upstream stub: %s", request(r, "path")).Evidencef(r.Observer, "%s", r.Summary)
		}
	case kindNoProgram, kindNotRan:
		for _, r := range programs.Ran(c.of(observers.KindProcess)) {
			switch {
			case e.kind == kindNoProgram:
				c.failf("a program ran: %s", commandLine(r)).Evidencef(r.Observer, "%s", r.Summary)
			case ran(r, e.text):
				c.failf("%s ran: %s", e.text, commandLine(r)).Evidencef(r.Observer, "%s", r.Summary)
			}
		}
	case kindNoOutlived:
		c.outlived()
	}
}

// of returns the records of one kind the probe saw.
func (c *call) of(kind string) []observers.Record {
	var out []observers.Record
	for _, r := range c.records {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

// outsideRoot reports whether a path relative to the sandbox top is outside
// root/ in a place a server has no business writing: root-evil, canary or
// the top itself. home and tmp are the server's HOME and TMPDIR; bin holds
// the harness's exec log.
func outsideRoot(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	switch first {
	case "root", "home", "tmp", "bin":
		return false
	}
	return true
}

// fileChanges compares the paths that changed with the expected ones.
func (c *call) fileChanges(e Expect) {
	want := map[string]string{} // relative path → as written
	var order []string
	for _, p := range e.paths {
		abs, ok := c.expand(e, p, nil)
		if !ok {
			return
		}
		rel := abs
		if filepath.IsAbs(abs) {
			r, err := filepath.Rel(c.p.Sandbox.Top, abs)
			if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				c.failf("%s: cannot be checked: %s is outside the sandbox", e, p)
				return
			}
			rel = filepath.ToSlash(r)
		}
		rel = path.Clean(rel)
		if _, dup := want[rel]; !dup {
			order = append(order, rel)
		}
		want[rel] = p
	}
	seen := map[string]bool{}
	for _, r := range c.of(observers.KindFile) {
		changed := []string{r.Data[observers.KeyPath]}
		if r.Data[observers.KeyFrom] != "" {
			changed = append(changed, r.Data[observers.KeyFrom])
		}
		expected := false
		for _, p := range changed {
			if _, ok := want[p]; ok {
				seen[p], expected = true, true
			}
		}
		if !expected && !(r.Data[observers.KeyOp] == "created" && r.Data[observers.KeyType] == "dir" && ancestor(r.Data[observers.KeyPath], order)) {
			c.failf("an unexpected file change: %s", r.Summary).Evidencef(r.Observer, "%s", r.Summary)
		}
	}
	for _, rel := range order {
		if !seen[rel] {
			c.failf("%s did not change", want[rel]).Evidencef("files", "no change of %s was seen during the call", rel)
		}
	}
}

// ancestor reports whether dir is a parent directory of one of the paths.
func ancestor(dir string, paths []string) bool {
	return slices.ContainsFunc(paths, func(p string) bool { return strings.HasPrefix(p, dir+"/") })
}

// request is "GET /cb/x" for a connection or upstream record, or its
// summary when it was not HTTP.
func request(r observers.Record, target string) string {
	if r.Data[observers.KeyMethod] == "" {
		return strings.SplitN(r.Summary, " from ", 2)[0]
	}
	return r.Data[observers.KeyMethod] + " " + r.Data[target]
}

// commandLine is a process record's command line, without its pid, so the
// message and its fingerprint stay the same across runs.
func commandLine(r observers.Record) string {
	if a := packs.Argv(r); len(a) > 0 {
		return cut(strings.Join(a, " "), 200)
	}
	for _, k := range []string{observers.KeyProg, observers.KeyComm, observers.KeyExe} {
		if v := r.Data[k]; v != "" {
			return v
		}
	}
	return r.Summary
}

// ran reports whether a process record is of the named program: its exec
// log name, argv[0], executable or comm (which the kernel cuts at 15 bytes).
func ran(r observers.Record, program string) bool {
	base := func(s string) string { return path.Base(filepath.ToSlash(s)) }
	if r.Data[observers.KeyProg] == program || base(r.Data[observers.KeyExe]) == program {
		return true
	}
	if a := packs.Argv(r); len(a) > 0 && base(a[0]) == program {
		return true
	}
	comm := r.Data[observers.KeyComm]
	return comm != "" && (comm == program || (len(program) > 15 && comm == program[:15]))
}

// pids are the pids of process records.
func pids(recs []observers.Record) map[string]bool {
	out := map[string]bool{}
	for _, r := range recs {
		out[r.Data[observers.KeyPid]] = true
	}
	return out
}

// aliveSummary reads "pid 42 (sm-sleep 600) is alive".
var aliveSummary = regexp.MustCompile(`^pid \d+ \((.*)\) is alive$`)

// outlived fails the row for every process of the run alive now that was
// not alive before the call and is still alive after a short grace.
func (c *call) outlived() {
	var left []observers.Record
	deadline := time.Now().Add(outlivedGrace)
	for {
		left = left[:0]
		for _, r := range c.p.Observed.Survivors() {
			if !c.before[r.Data[observers.KeyPid]] {
				left = append(left, r)
			}
		}
		if len(left) == 0 || !time.Now().Before(deadline) || c.p.Ctx.Err() != nil {
			break
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-c.p.Ctx.Done():
		}
	}
	for _, r := range left {
		what := r.Summary
		if m := aliveSummary.FindStringSubmatch(r.Summary); m != nil {
			what = m[1]
		}
		c.failf("a process outlived the call: %s", what).Evidencef("process", "%s", r.Summary)
	}
}
