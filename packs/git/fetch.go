package git

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// fetchSources are repositories outside the root a remote must not be
// fetched from: local paths and a file:// URL, never a network URL.
var fetchSources = []string{"{sandbox_top}/canary/repo", "file://{sandbox_top}/canary/repo", "{sandbox}/../canary/remote.git",
	"{sandbox}-evil/repo", "{sandbox}/link-repo"}

// remoteArgNames name a fetch or pull tool's remote argument.
var remoteArgNames = []string{"remote", "remotename", "name", "repository", "upstream", "from", "source", "url"}

var remoteFetch = packs.Probe{
	ID:       "GIT-REMOTE-FETCH",
	Name:     "remote-fetch",
	Severity: packs.High,
	CWE:      "CWE-22",
	Active:   true,
	Doc:      "a remote added with a local path or file:// URL outside the root, or named to a fetch or pull directly, must not bring that repository's commits into the root, where other tools can read them (" + escapeClass + ")",
	Run: func(p *packs.Pass) {
		r := start(p)
		if r == nil {
			return
		}
		var adders []Tool
		for _, t := range r.tools(Remote) {
			if t.URL != "" && (t.Mode == "" || t.opMode() != "") {
				adders = append(adders, t)
			}
		}
		fetchers := r.fetchers()
		if len(fetchers) == 0 {
			if len(adders) > 0 {
				p.NotApplicable("%s adds a remote, but no fetch or pull tool takes a remote to read it from", adders[0].Name)
			} else {
				p.NotApplicable("no fetch or pull tool takes a remote")
			}
			return
		}
		own := headOf(r.gs.Repo)
		outside := r.outsideHeads()
		if own == "" || len(outside) == 0 {
			p.NotApplicable("the commits of root/repo and the repositories outside the root could not be read")
			return
		}
		direct := false
		for _, f := range fetchers {
			for _, a := range adders {
				if r.dead || !r.remoteControl(a, f, own) {
					continue
				}
				for _, tmpl := range fetchSources {
					r.remoteAttempt(a, f, r.expand(tmpl, ""), outside)
				}
			}
			if r.dead || !r.fetchControl(f, own) {
				continue
			}
			direct = true
			for _, tmpl := range fetchSources {
				args := r.args(f, map[string]any{remoteArg(f): r.expand(tmpl, "")})
				desc := r.describe(f, args, remoteArg(f))
				res := r.call(f, args, desc)
				r.judgeFetch(desc, res, args, f, outside)
			}
		}
		if len(adders) == 0 && !direct && r.passed == 0 && !r.dead {
			p.NotApplicable("no tool adds a remote, and %s does not fetch from a path named as its remote", fetchers[0].Name)
			return
		}
		r.finish()
	},
}

// fetchers are the tools that fetch or pull from a remote they take.
func (r *run) fetchers() []Tool {
	var out []Tool
	for _, t := range r.tools(Read, Write) {
		if hasAny(packs.Words(t.Name), "fetch", "pull") && remoteArg(t) != "" {
			out = append(out, t)
		}
	}
	return out
}

// remoteArg is a fetch tool's argument naming the remote, or "".
func remoteArg(t Tool) string {
	for _, n := range remoteArgNames {
		for _, a := range t.Refs {
			if packs.NormalizeName(a) == n {
				return a
			}
		}
	}
	return ""
}

// remoteControl adds root/repo itself as a remote of root/repo (by path,
// then by file:// URL) and fetches it: root/repo must then hold a
// remote-tracking ref or FETCH_HEAD at its own commit. The fetch is
// judged by that alone: a pull that fetched and then failed to merge
// (no branch named) has read the remote all the same.
func (r *run) remoteControl(a, f Tool, own string) bool {
	var why []string
	for _, url := range []string{r.gs.Repo, "file://" + r.gs.Repo} {
		name := r.name("ctl")
		args := r.args(a, map[string]any{a.URL: url, remoteName(a): name})
		desc := r.describe(a, args, a.Mode, a.URL)
		res := r.call(a, args, "control "+desc)
		if res == nil {
			return false
		}
		fargs := r.args(f, map[string]any{remoteArg(f): name})
		fdesc := r.describe(f, fargs, remoteArg(f))
		fres := r.call(f, fargs, "control "+fdesc)
		if fres == nil {
			return false
		}
		got := slices.Contains(r.fetchedRefs(), own)
		r.forgetFetches()
		r.dropRemote(name)
		r.records()
		if !res.Refused() && got { // a pull that fetched and then would not merge has still fetched
			r.passed++
			return true
		}
		why = append(why, fmt.Sprintf("%s then %s did not fetch root/repo (%s; %s)", desc, fdesc, res.Brief(), fres.Brief()))
	}
	r.failed = append(r.failed, a.Name+": "+strings.Join(why, "; "))
	return false
}

// fetchControl names root/repo's path as the fetch tool's remote: a tool
// that fetches from it is probed with the outside paths too; one that
// takes remote names only is left out with a note.
func (r *run) fetchControl(f Tool, own string) bool {
	args := r.args(f, map[string]any{remoteArg(f): r.gs.Repo})
	desc := r.describe(f, args, remoteArg(f))
	res := r.call(f, args, "control "+desc)
	if res == nil {
		return false
	}
	got := slices.Contains(r.fetchedRefs(), own)
	r.forgetFetches()
	r.records()
	if !got {
		r.p.Notef("%s takes remote names only: %s did not fetch root/repo (%s)", f.Name, desc, res.Brief())
		return false
	}
	r.passed++
	return true
}

// remoteName is the argument a remote tool takes the remote's name in.
func remoteName(a Tool) string {
	for _, n := range []string{"name", "remotename", "remote"} {
		for _, ref := range a.Refs {
			if packs.NormalizeName(ref) == n {
				return ref
			}
		}
	}
	return "name"
}

// remoteAttempt adds url as a remote of root/repo and, when the tool
// accepts it, fetches it.
func (r *run) remoteAttempt(a, f Tool, url string, outside map[string]string) {
	name := r.name("r")
	args := r.args(a, map[string]any{a.URL: url, remoteName(a): name})
	desc := r.describe(a, args, a.Mode, a.URL)
	res := r.call(a, args, desc)
	if res == nil {
		return
	}
	r.judgeRead(a, res, args, desc)
	if res.Refused() {
		r.judgeCreated(desc, "", false, r.records())
		return
	}
	fargs := r.args(f, map[string]any{remoteArg(f): name})
	fdesc := desc + " then " + r.describe(f, fargs, remoteArg(f))
	r.judgeFetch(fdesc, r.call(f, fargs, fdesc), fargs, f, outside)
	r.dropRemote(name)
}

// dropRemote removes a remote the probe added from root/repo/.git/config
// (its [remote "NAME"] section), so no remote pointing outside the root
// stays for later probes. It works through an os.Root on root/repo.
func (r *run) dropRemote(name string) {
	root, err := os.OpenRoot(r.gs.Repo)
	if err != nil {
		r.p.Notef("restoring root/repo: %v", err)
		return
	}
	defer root.Close()
	b, err := root.ReadFile(".git/config")
	if err != nil {
		r.p.Notef("restoring root/repo: %v", err)
		return
	}
	if out, ok := withoutSection(b, `[remote "`+name+`"]`); ok {
		if err := root.WriteFile(".git/config", out, 0o644); err != nil {
			r.p.Notef("restoring root/repo: %v", err)
		}
	}
}

// withoutSection returns a git config file without the section whose
// header line is header, and whether it had one.
func withoutSection(b []byte, header string) ([]byte, bool) {
	var out []byte
	in, found := false, false
	for line := range bytes.Lines(b) {
		t := bytes.TrimSpace(line)
		if bytes.HasPrefix(t, []byte("[")) {
			in = string(t) == header
			found = found || in
		}
		if !in {
			out = append(out, line...)
		}
	}
	return out, found
}

// judgeFetch reports a fetch that brought an outside repository's commit
// into root/repo (the harness reads root/repo/.git itself), and canary
// content in the answer; then it forgets what was fetched.
func (r *run) judgeFetch(desc string, res *packs.Response, args map[string]any, f Tool, outside map[string]string) {
	if res != nil {
		r.judgeRead(f, res, args, desc)
	}
	if file, name := r.holding(outside); file != "" {
		r.p.Reportf("%s fetched the commits of %s, outside the root, into {sandbox}/repo", desc, name).
			Evidencef("sandbox", "{sandbox}/repo/.git/%s names %s's head commit after the call", file, name)
	}
	r.forgetFetches()
	r.judgeCreated(desc, "", false, r.records())
}

// outsideHeads maps the head commits of the repositories outside the root
// to their names.
func (r *run) outsideHeads() map[string]string {
	out := map[string]string{}
	for name, dir := range map[string]string{"canary/repo": filepath.Join(r.sb.Top, "canary", "repo"), "root-evil/repo": r.sb.Root + "-evil/repo"} {
		if h := headOf(dir); h != "" {
			out[h] = name
		}
	}
	return out
}

// maxGitFiles bounds the files of root/repo/.git the harness reads.
const maxGitFiles = 500

// holding returns the first file of root/repo/.git (objects left out)
// that names one of the commits, and whose commit it is.
func (r *run) holding(commits map[string]string) (file, name string) {
	gitdir := filepath.Join(r.gs.Repo, ".git")
	n := 0
	_ = filepath.WalkDir(gitdir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || file != "" || n >= maxGitFiles {
			return filepath.SkipDir
		}
		if d.IsDir() && (d.Name() == "objects" || d.Name() == "hooks") {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		n++
		b := readSmall(p)
		for sha, nm := range commits {
			if bytes.Contains(b, []byte(sha)) {
				file, name = filepath.ToSlash(strings.TrimPrefix(p, gitdir+string(filepath.Separator))), nm
				return filepath.SkipAll
			}
		}
		return nil
	})
	return file, name
}

// fetchedRefs returns the commits root/repo's FETCH_HEAD and
// remote-tracking refs name.
func (r *run) fetchedRefs() []string {
	gitdir := filepath.Join(r.gs.Repo, ".git")
	var out []string
	add := func(b []byte, remotesOnly bool) {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			line := sc.Text()
			if remotesOnly && !strings.Contains(line, "refs/remotes/") {
				continue
			}
			if f := strings.Fields(line); len(f) > 0 && len(f[0]) >= 40 {
				out = append(out, f[0])
			}
		}
	}
	add(readSmall(filepath.Join(gitdir, "FETCH_HEAD")), false)
	add(readSmall(filepath.Join(gitdir, "packed-refs")), true)
	_ = filepath.WalkDir(filepath.Join(gitdir, "refs", "remotes"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			add(readSmall(p), false)
		}
		return nil
	})
	return out
}

// forgetFetches removes what a fetch leaves in root/repo/.git (FETCH_HEAD,
// the remote-tracking refs and their logs), so the next call is judged on
// its own. It works through an os.Root on root/repo.
func (r *run) forgetFetches() {
	root, err := os.OpenRoot(r.gs.Repo)
	if err != nil {
		r.p.Notef("restoring root/repo: %v", err)
		return
	}
	defer root.Close()
	for _, rel := range []string{".git/FETCH_HEAD", ".git/refs/remotes", ".git/logs/refs/remotes"} {
		if err := root.RemoveAll(rel); err != nil {
			r.p.Notef("restoring root/repo: %v", err)
		}
	}
}

// headOf returns the commit a repository's HEAD names (dir is a working
// tree or a bare repository), read from its files; "" when it cannot.
func headOf(dir string) string {
	gitdir := filepath.Join(dir, ".git")
	if fi, err := os.Stat(gitdir); err != nil || !fi.IsDir() {
		gitdir = dir
	}
	head := strings.TrimSpace(string(readSmall(filepath.Join(gitdir, "HEAD"))))
	ref, ok := strings.CutPrefix(head, "ref: ")
	if !ok {
		return head
	}
	if b := strings.TrimSpace(string(readSmall(filepath.Join(gitdir, filepath.FromSlash(ref))))); b != "" {
		return b
	}
	for line := range strings.SplitSeq(string(readSmall(filepath.Join(gitdir, "packed-refs"))), "\n") {
		if sha, name, ok := strings.Cut(line, " "); ok && name == ref {
			return sha
		}
	}
	return ""
}

// readSmall reads up to 64 KiB of a regular file; nil on any error.
func readSmall(p string) []byte {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxScanBytes))
	return b
}
