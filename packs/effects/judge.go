package effects

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

var writesOutside = packs.Probe{
	ID:       "EFFECTS-WRITES-OUTSIDE-SANDBOX",
	Name:     "writes-outside-sandbox",
	Severity: packs.High,
	CWE:      "CWE-732",
	Doc:      "a tool call must not open a file for writing, nor delete, rename, link, make or truncate one, outside the sandbox, refused or not: its own code (in its install directory) and the user's home are high, a data file in its install directory (state shared by every user of the install) medium, the system temp directory medium, anywhere else critical",
	Run: func(p *packs.Pass) {
		r := swept(p)
		if r == nil {
			return
		}
		if !r.egress {
			p.NotApplicable("the egress observer (the seccomp layer) did not watch this start, so opens, deletes and renames outside the sandbox are not seen")
			return
		}
		top := ""
		if p.Sandbox != nil {
			top = p.Sandbox.Top
		}
		for _, c := range r.calls {
			found := map[string]*packs.Finding{} // outside path -> the finding that names it
			for _, rec := range of(c.recs, observers.KindProcess) {
				var outside []string
				for _, where := range touched(rec) {
					if where != "" && !within(where, top) && !device(where) {
						outside = append(outside, where)
					}
				}
				if len(outside) == 0 {
					continue
				}
				if f := found[outside[0]]; f != nil {
					// the same place again (written, then deleted): one
					// finding, with every attempt as evidence
					if len(f.Evidence) < maxAttempts {
						f.Evidencef("egress", "%s", rec.Summary)
					}
					continue
				}
				loc, sev := locate(p, outside[0])
				for _, where := range outside[1:] {
					if l, s := locate(p, where); s > sev {
						loc, sev = l, s
					}
				}
				f := p.Reportf("%s %s (%s), outside the sandbox", c.shown, tried(p, rec), loc)
				f.Severity = sev
				f.Evidencef("egress", "%s", rec.Summary)
				for _, where := range outside {
					if found[where] == nil {
						found[where] = f
					}
				}
			}
		}
	},
}

// maxAttempts bounds the evidence one finding quotes.
const maxAttempts = 8

// touched are the places an egress record says a call tried to change:
// the file an open for writing names, what a delete, mkdir, mknod or
// truncate names, both ends of a rename, the new name of a link and the
// existing file of a hard link (a hard link into the sandbox would make an
// outside file writable from it). A symbolic link's contents change
// nothing where they point. Nothing for other records.
func touched(rec observers.Record) []string {
	d := rec.Data
	switch d[observers.KeyOp] {
	case "open-write", "remove", "mkdir", "mknod", "truncate":
		return []string{d[observers.KeyPath]}
	case "rename":
		return []string{d[observers.KeyPath], d[keyTo]}
	case "link":
		if d[keySyscall] == "symlink" || d[keySyscall] == "symlinkat" {
			return []string{d[observers.KeyPath]}
		}
		return []string{d[observers.KeyPath], d[observers.KeyTarget]}
	}
	return nil
}

// The egress keys of a change to an entry only this probe reads.
const (
	keyTo      = "to"      // a rename's destination
	keySyscall = "syscall" // the call's name
)

// tried says what a record's call tried: "opened ~/.bashrc for writing",
// "tried to delete ~/.bashrc", "tried to rename {tmp}/a to {tmp}/b".
func tried(p *packs.Pass, rec observers.Record) string {
	d := rec.Data
	at := stablePath(p, d[observers.KeyPath])
	switch d[observers.KeyOp] {
	case "remove":
		if d[keySyscall] == "rmdir" || strings.Contains(d[observers.KeyFlags], "AT_REMOVEDIR") {
			return "tried to delete the directory " + at
		}
		return "tried to delete " + at
	case "rename":
		return "tried to rename " + at + " to " + stablePath(p, d[keyTo])
	case "link":
		if d[keySyscall] == "symlink" || d[keySyscall] == "symlinkat" {
			return "tried to make " + at + " a symbolic link to " + d[observers.KeyTarget]
		}
		return "tried to make " + at + " a hard link to " + stablePath(p, d[observers.KeyTarget])
	case "mkdir":
		return "tried to make the directory " + at
	case "mknod":
		return "tried to make the node " + at
	case "truncate":
		return "tried to truncate " + at
	}
	return "opened " + at + " for writing"
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// device reports whether a path is a device or a process file, which an
// open for writing does not change on disk (/dev/null, /dev/tty, /proc/...);
// /dev/shm is a shared temp directory and counts.
func device(p string) bool {
	if within(p, "/dev/shm") {
		return false
	}
	return within(p, "/dev") || within(p, "/proc") || within(p, "/sys")
}

// codeExts are the extensions of files that are code or load as code.
var codeExts = []string{".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx", ".node", ".wasm",
	".py", ".pyc", ".pyo", ".pth", ".so", ".dylib", ".dll", ".exe", ".sh", ".bash", ".rb", ".pl", ".php", ".jar", ".class"}

// manifests are the files that say what a package runs.
var manifests = []string{"package.json", "pyproject.toml", "setup.py", "setup.cfg", "go.mod", "Cargo.toml"}

// codeFile reports whether a path relative to an install directory is
// code, or decides what code runs: by its extension, a package manifest,
// or a place under a bin, .bin or node_modules directory.
func codeFile(where string) bool {
	base := filepath.Base(where)
	if slices.Contains(codeExts, strings.ToLower(filepath.Ext(base))) || slices.Contains(manifests, base) {
		return true
	}
	for _, part := range strings.Split(filepath.ToSlash(filepath.Dir(where)), "/") {
		if part == "bin" || part == ".bin" || part == "node_modules" {
			return true
		}
	}
	return false
}

// tempDirs are the system's shared temp directories.
func tempDirs() []string {
	return []string{os.TempDir(), "/tmp", "/var/tmp", "/dev/shm"}
}

// locate says where a path outside the sandbox is, and how bad a write
// there is.
func locate(p *packs.Pass, where string) (string, packs.Severity) {
	if within(where, p.Install) {
		if rel, err := filepath.Rel(p.Install, where); err == nil && codeFile(rel) {
			return "the server's own code, in its install directory, shared by every user of the install", packs.High
		}
		// A data file the server keeps beside its code (server-memory's
		// memory.jsonl at its documented default) is state outside the
		// project, shared by every project that uses the install: worth
		// saying, but no change to what runs.
		return "a data file in the server's own install directory, shared by every user of the install", packs.Medium
	}
	if home, err := os.UserHomeDir(); err == nil && within(where, home) {
		return "the user's home directory", packs.High
	}
	for _, t := range tempDirs() {
		if within(where, t) {
			return "the system temp directory, shared by every user", packs.Medium
		}
	}
	return "a system location", packs.Critical
}

// stablePath shows a path outside the sandbox with {install}, ~ or {tmp}
// for the places that differ between machines.
func stablePath(p *packs.Pass, where string) string {
	if within(where, p.Install) {
		rel, _ := filepath.Rel(p.Install, where)
		return path.Join("{install}", filepath.ToSlash(rel))
	}
	if home, err := os.UserHomeDir(); err == nil && within(where, home) {
		rel, _ := filepath.Rel(home, where)
		return path.Join("~", filepath.ToSlash(rel))
	}
	for _, t := range tempDirs() {
		if within(where, t) {
			rel, _ := filepath.Rel(t, where)
			return path.Join("{tmp}", filepath.ToSlash(rel))
		}
	}
	return where
}

var sharedOutput = packs.Probe{
	ID:       "EFFECTS-SHARED-OUTPUT",
	Name:     "shared-output",
	Severity: packs.Medium,
	CWE:      "CWE-276",
	Doc:      "a file a tool call writes must not be world-writable (high), nor readable by group or others in the temp directory, which stands for the shared system one, when it holds what the call was given (medium)",
	Run: func(p *packs.Pass) {
		r := swept(p)
		if r == nil {
			return
		}
		for _, c := range r.calls {
			for _, rec := range of(c.recs, observers.KindFile) {
				mode, err := strconv.ParseUint(rec.Data[observers.KeyMode], 8, 32)
				if err != nil || rec.Data[observers.KeyType] != "file" {
					continue
				}
				switch rec.Data[observers.KeyOp] {
				case "created", "modified", "mode-changed":
				default:
					continue
				}
				rel := rec.Data[observers.KeyPath]
				switch {
				case mode&0o002 != 0:
					f := p.Reportf("%s left %s world-writable (%s)", c.shown, rel, rec.Data[observers.KeyMode])
					f.Severity = packs.High
					f.Evidencef("files", "%s", rec.Summary)
				case mode&0o044 != 0 && strings.HasPrefix(rel, "tmp/") && holds(p, rel, r.token):
					p.Reportf("%s wrote what it was given into %s, readable by %s (%s), in the temp directory", c.shown, rel, readers(mode), rec.Data[observers.KeyMode]).
						Evidencef("files", "%s", rec.Summary)
				}
			}
		}
	},
}

// holds reports whether a sandbox file holds token, what the call was
// given (read bounded, without following a link out).
func holds(p *packs.Pass, rel, token string) bool {
	if p.Sandbox == nil {
		return false
	}
	root, err := os.OpenRoot(p.Sandbox.Top)
	if err != nil {
		return false
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(rel))
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 64<<10)
	n, _ := f.Read(b)
	return strings.Contains(string(b[:n]), token)
}

func readers(mode uint64) string {
	switch {
	case mode&0o004 != 0:
		return "everyone"
	default:
		return "its group"
	}
}

var listeners = packs.Probe{
	ID:       "EFFECTS-LISTENERS",
	Name:     "listeners",
	Severity: packs.Medium,
	CWE:      "CWE-1327",
	Doc:      "a tool call must not leave a listening socket open (high on all interfaces)",
	Run: func(p *packs.Pass) {
		r := swept(p)
		if r == nil {
			return
		}
		for _, c := range r.calls {
			for _, rec := range of(c.recs, observers.KindSocket) {
				if rec.Data[observers.KeyOp] != "listen" {
					continue
				}
				f := p.Reportf("%s opened a listening socket: %s on %s (%s)", c.shown, rec.Data[observers.KeyProto], rec.Data[observers.KeyAddr], strings.ReplaceAll(rec.Data[observers.KeyScope], "-", " "))
				if rec.Data[observers.KeyScope] == "all-interfaces" {
					f.Severity = packs.High
				}
				f.Evidencef("sockets", "%s", rec.Summary)
			}
		}
	},
}

// retryAttempts is how many attempts at one destination in the quiet
// window after the last call make a server one that keeps retrying.
const retryAttempts = 3

var network = packs.Probe{
	ID:       "EFFECTS-NETWORK",
	Name:     "network",
	Severity: packs.Info,
	CWE:      "CWE-200",
	Doc:      "every network attempt a tool call makes beyond the harness's own endpoints is listed (info), so a user sees which tools need the network; a server that keeps trying after its calls answered is named (medium)",
	Run: func(p *packs.Pass) {
		r := swept(p)
		if r == nil {
			return
		}
		if !r.egress {
			p.NotApplicable("the egress observer (the seccomp layer) did not watch this start, so network attempts are not seen")
			return
		}
		for _, c := range r.calls {
			dests := destinations(c.recs)
			if len(dests) == 0 {
				continue
			}
			p.Reportf("%s tried the network: %s", c.shown, strings.Join(dests, ", ")).Evidencef("egress", "%d attempts refused during the call", attempts(c.recs))
		}
		counts := map[string]int{}
		var order []string
		for _, rec := range r.after {
			if d, ok := destination(rec); ok {
				if counts[d] == 0 {
					order = append(order, d)
				}
				counts[d]++
			}
		}
		for _, d := range order {
			if counts[d] >= retryAttempts {
				f := p.Reportf("the server keeps trying %s after its calls answered: %d attempts in %s with no call running", d, counts[d], quiet)
				// Unasked, repeated, in the background: a beacon or a
				// phone-home, which a reviewer asks about (medium).
				f.Severity = packs.Medium
				f.Evidencef("egress", "%d refused attempts at %s in the quiet window after the sweep", counts[d], d)
			}
		}
	},
}

// destination describes a refused network attempt: "DNS 127.0.0.53:53"
// or "connect 203.0.113.9:443"; false for anything else.
func destination(r observers.Record) (string, bool) {
	if r.Kind != observers.KindSocket || r.Observer != "egress" || r.Data[observers.KeyVerdict] != "deny" {
		return "", false
	}
	addr := r.Data[observers.KeyAddr]
	if r.Data[observers.KeyPort] != "" {
		addr = joinHostPort(addr, r.Data[observers.KeyPort])
	}
	if r.Data[observers.KeyPort] == "53" {
		return "DNS " + addr, true
	}
	return r.Data[observers.KeyOp] + " " + addr, true
}

func joinHostPort(host, port string) string {
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		return "[" + host + "]:" + port
	}
	if strings.HasSuffix(host, ":"+port) {
		return host
	}
	return host + ":" + port
}

// destinations lists a call's refused attempts, once each, in order.
func destinations(recs []observers.Record) []string {
	var out []string
	for _, r := range recs {
		if d, ok := destination(r); ok && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func attempts(recs []observers.Record) int {
	n := 0
	for _, r := range recs {
		if _, ok := destination(r); ok {
			n++
		}
	}
	return n
}
