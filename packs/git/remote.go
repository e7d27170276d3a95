package git

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// remoteSources are repositories outside the root a clone must not copy
// in.
var remoteSources = []string{"{sandbox_top}/canary/repo", "file://{sandbox_top}/canary/repo", "{sandbox}/../canary/remote.git",
	"../canary/repo", "{sandbox}-evil/repo", "{sandbox}/link-repo"}

var remoteRead = packs.Probe{
	ID:       "GIT-REMOTE-READ",
	Name:     "remote-read",
	Severity: packs.High,
	CWE:      "CWE-22",
	Active:   true,
	Doc:      "a clone tool must not copy a repository from outside the root into it (a local path, file:// URL, the prefix sibling or a link), where other tools can read it (" + escapeClass + ")",
	Run: func(p *packs.Pass) {
		r := start(p)
		if r == nil {
			return
		}
		var tools []Tool
		for _, t := range r.tools(Clone) {
			if t.URL != "" && t.Dest != "" {
				tools = append(tools, t)
			}
		}
		if len(tools) == 0 {
			p.NotApplicable("no clone tool takes a URL and a destination (remote add with fetch or pull is remote-fetch's)")
			return
		}
		for _, t := range tools {
			if r.dead || !r.cloneControl(t) {
				continue
			}
			for _, tmpl := range remoteSources {
				name := r.name("clone")
				at := filepath.Join(r.sb.Root, name)
				args := r.args(t, map[string]any{t.URL: r.expand(tmpl, ""), t.Dest: at})
				desc := r.describe(t, args, t.URL, t.Dest)
				if res := r.call(t, args, desc); res != nil {
					r.judgeRead(t, res, args, desc)
				}
				if leaked := r.canariesIn(at); len(leaked) > 0 {
					r.p.Reportf("%s copied the canary of %s into the root", desc, strings.Join(leaked, ", ")).
						Evidencef("sandbox", "{sandbox}/%s holds the canary of %s after the call", name, strings.Join(leaked, ", "))
				}
				_ = os.RemoveAll(at)
				r.judgeCreated(desc, "", false, r.records())
			}
		}
		r.finish()
	},
}

// cloneControl clones root/repo into the root and checks it arrived.
func (r *run) cloneControl(t Tool) bool {
	at := filepath.Join(r.sb.Root, r.name("ctl"))
	args := r.args(t, map[string]any{t.URL: r.gs.Repo, t.Dest: at})
	desc := r.describe(t, args, t.URL)
	res := r.call(t, args, "control "+desc)
	_, err := os.Stat(filepath.Join(at, "README.md"))
	ok := r.control(t, res, desc, err == nil)
	_ = os.RemoveAll(at)
	r.records()
	return ok
}

// maxScan bounds what canariesIn reads.
const (
	maxScanFiles = 200
	maxScanBytes = 64 << 10
)

// canariesIn names the canary repositories whose secret a file below dir
// holds (links are not followed).
func (r *run) canariesIn(dir string) []string {
	found := map[string]bool{}
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || n >= maxScanFiles {
			return filepath.SkipDir
		}
		if d.IsDir() && d.Name() == "objects" {
			return filepath.SkipDir // compressed; the checked-out files say it plainly
		}
		if !d.Type().IsRegular() {
			return nil
		}
		n++
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		b, _ := io.ReadAll(io.LimitReader(f, maxScanBytes))
		f.Close()
		for _, s := range r.gs.Repos {
			if bytes.Contains(b, []byte(s.Value)) || strings.Contains(d.Name(), s.Value) {
				found[s.Name] = true
			}
		}
		return nil
	})
	var out []string
	for _, s := range r.gs.Repos {
		if found[s.Name] {
			out = append(out, s.Name)
		}
	}
	return out
}
