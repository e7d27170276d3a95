package effects

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
	ran "github.com/sealmark/sealmark/packs/internal/programs"
)

var spawns = packs.Probe{
	ID:       "EFFECTS-SPAWNS",
	Name:     "spawns",
	Severity: packs.High,
	CWE:      "CWE-78",
	Doc:      "a tool whose job is not to run programs (by its name, description and arguments) must not run one it does not name; one it only tried, found nowhere, is low (nothing ran); what the server's own runtime starts (git's remote helpers and exec-path programs under a git the tool ran, the package's own binaries) is not the tool's",
	Run: func(p *packs.Pass) {
		r := swept(p)
		if r == nil {
			return
		}
		var calls []toolCall
		for _, c := range r.calls {
			t, _ := p.Surface.Tool(c.tool)
			calls = append(calls, toolCall{tool: t, shown: c.shown, recs: programs(of(c.recs, observers.KindProcess), r.egress)})
		}
		judgeSpawns(p, ownPrograms(p), calls, r.token)
	},
}

// The egress exec keys only this probe reads (internal/seccomp sets them).
const (
	keyFound = "found" // "true", "false" (no such file), "not-executable"; absent when not told
	keyPpid  = "ppid"  // the parent of the process that asked for the exec
	// the parents above ppid, nearest first, space-separated
	keyAncestors = "ancestors"
)

// attempt is one program a call tried to run, with every exec of it.
type attempt struct {
	name string             // the program's base name
	recs []observers.Record // every exec of it, in order
	ran  []observers.Record // those that ran
	// notExec: some exec found a file there that cannot be executed
	// (and none ran)
	notExec bool
}

// attempted groups a call's exec records by the program they name, one
// attempt per program in the order first tried, and leaves out what the
// server's own runtime started (see ownership.started). An exec ran unless
// the egress observer found nothing there to run: a PATH search, one
// execve per directory, is one attempt that ran at most once.
func attempted(p *packs.Pass, own ownership, recs []observers.Record) []*attempt {
	var out []*attempt
	by := map[string]*attempt{}
	images := map[string]string{}  // pid -> the base name of what it runs now
	parents := map[string]string{} // pid -> its parent, as exec records say
	for _, r := range recs {
		pid := r.Data[observers.KeyPid]
		if pp := r.Data[keyPpid]; pid != "" && pp != "" {
			parents[pid] = pp
			// The parents above, read at the exec: a forked subshell that
			// execs nothing itself is linked through them.
			up := pp
			for _, a := range strings.Fields(r.Data[keyAncestors]) {
				if _, known := parents[up]; !known {
					parents[up] = a
				}
				up = a
			}
		}
		name := execName(r)
		found := r.Data[keyFound]
		ran := found != "false" && found != "not-executable"
		theirs := own.started(r, images, parents)
		if ran && pid != "" {
			images[pid] = name
			if gitCore(pathOf(r)) {
				images[pid] = gitCoreImage
			}
		}
		if theirs || name == "" {
			continue
		}
		a := by[name]
		if a == nil {
			a = &attempt{name: name}
			by[name] = a
			out = append(out, a)
		}
		a.recs = append(a.recs, r)
		if ran {
			a.ran = append(a.ran, r)
		}
		if found == "not-executable" {
			a.notExec = true
		}
	}
	return out
}

// report words an attempt as a finding on the call shown: "ran CMD"
// (high) when it ran, else "tried to run NAME (not found)" or "(not
// executable)", low: nothing ran, so nothing it would do is seen; what is
// seen is that the tool reaches for a program it does not name, which on
// a machine where the program is installed would run. Neither the message
// nor the evidence shows a path of the host's own (a PATH directory of the
// user's), only the sandbox's, {install}, {tmp}, system directories and
// bare program names.
func (a *attempt) report(p *packs.Pass, shown string) {
	if len(a.ran) > 0 {
		f := p.Reportf("%s ran %s", shown, commandLine(p, a.ran[0]))
		for i, r := range a.ran {
			if i == maxAttempts {
				f.Evidencef(r.Observer, "and %d more runs of %s", len(a.ran)-i, a.name)
				break
			}
			at := shownPath(p, pathOf(r))
			if at == "" {
				at = a.name // an exec log line names no file
			}
			f.Evidencef(r.Observer, "pid %s ran %s with argv %s", r.Data[observers.KeyPid], at, argvText(p, r))
		}
		return
	}
	why, none := "not found", "no such file"
	if a.notExec {
		why, none = "not executable", "no executable file"
	}
	f := p.Reportf("%s tried to run %s (%s)", shown, a.name, why)
	f.Severity = packs.Low
	var pids []string
	tries := map[string][]observers.Record{}
	for _, r := range a.recs {
		pid := r.Data[observers.KeyPid]
		if tries[pid] == nil {
			pids = append(pids, pid)
		}
		tries[pid] = append(tries[pid], r)
	}
	for i, pid := range pids {
		if i == maxAttempts {
			f.Evidencef("egress", "and %d more processes that tried %s", len(pids)-i, a.name)
			break
		}
		rs := tries[pid]
		if len(rs) == 1 {
			f.Evidencef(rs[0].Observer, "pid %s tried %s with argv %s: %s there in the server's view, so nothing ran", pid, shownPath(p, pathOf(rs[0])), argvText(p, rs[0]), none)
			continue
		}
		f.Evidencef(rs[0].Observer, "pid %s tried %s in %d places on PATH with argv %s: %s at any in the server's view, so nothing ran", pid, a.name, len(rs), argvText(p, rs[0]), none)
	}
}

// ownership is what the server's own runtime may start without the tool
// being charged for it.
type ownership struct {
	install string   // the server's install directory, when it holds a package
	modules string   // the node_modules tree that holds the install directory
	self    []string // the server's own program, when in its install directory
	token   string   // the token the calls' arguments carry
}

// packageMarkers name a package's root directory (as the engine's
// {install} does).
var packageMarkers = []string{"package.json", "pyproject.toml", "setup.py", "Cargo.toml", "go.mod"}

// ownPrograms reads, for the pass, what belongs to the server's package:
// its install directory when a package marker says it is a package's
// (not a directory any program may be in, /usr/bin), the node_modules
// tree holding it, and the program its start ran (the egress observer's
// start record) when that is in the install directory (a server that
// runs itself again, a compiled server's subcommand).
func ownPrograms(p *packs.Pass) ownership {
	var o ownership
	if p.Install == "" {
		return o
	}
	for _, m := range packageMarkers {
		if _, err := os.Stat(filepath.Join(p.Install, m)); err == nil {
			o.install = p.Install
			break
		}
	}
	o.modules = nodeModules(p.Install)
	if p.Observed != nil {
		for _, r := range p.Observed.Pack() {
			if r.Observer == "egress" && r.Data[observers.KeyOp] == "exec" && r.Data[observers.KeyStart] == "true" && within(r.Data[observers.KeyPath], p.Install) {
				o.self = append(o.self, r.Data[observers.KeyPath])
			}
		}
	}
	return o
}

// started reports whether an exec is the server's own runtime at work
// rather than the tool's choice: a binary of the server's own package
// (in its install directory, or the node_modules tree that holds it: its
// dependencies' binaries, node_modules/.bin), its own program run again,
// or, below a git the tool ran (a process whose parent, or an ancestor of
// it, runs git), git's remote helpers (git-remote-http, ...), the
// programs in git's exec-path (a git-core directory: git-upload-pack, git
// itself for a sub-command) and the shell git starts for its own
// transport command (sh -c "git-upload-pack '...'"). A program such a
// process starts that is none of these (a command an --upload-pack or
// core.sshCommand named) is still the tool's.
func (o ownership) started(r observers.Record, images, parents map[string]string) bool {
	at := pathOf(r)
	if filepath.IsAbs(at) && (within(at, o.install) || within(at, o.modules) || slices.Contains(o.self, at)) {
		return true
	}
	if !underGit(r.Data[keyPpid], images, parents) {
		return false
	}
	// What a git-core program runs (git bisect's script runs uname, sed,
	// basename, gettext) is git's, unless the call's input reaches it (git
	// bisect run CMD).
	if underImage(r.Data[keyPpid], gitCoreImage, images, parents) &&
		(o.token == "" || !strings.Contains(strings.Join(packs.Argv(r), "\x00"), o.token)) {
		return true
	}
	name := execName(r)
	switch {
	case strings.HasPrefix(name, "git-remote-"):
		return true
	case gitCore(at):
		return true
	}
	switch name {
	case "sh", "bash", "dash":
		a := packs.Argv(r)
		return len(a) >= 3 && a[1] == "-c" && strings.HasPrefix(a[2], "git-")
	}
	return false
}

// maxDepth bounds the walk up a process's ancestors.
const maxDepth = 32

// gitCoreImage stands in images for a program of git's exec-path.
const gitCoreImage = "\x00git-core"

// gitCore reports whether a path is in git's exec-path (a git-core
// directory).
func gitCore(at string) bool {
	return path.Base(path.Dir(filepath.ToSlash(at))) == "git-core"
}

// underGit reports whether pid, or one of its ancestors, runs git (or a
// program of git's exec-path).
func underGit(pid string, images, parents map[string]string) bool {
	return underImage(pid, "git", images, parents) || underImage(pid, gitCoreImage, images, parents)
}

// underImage reports whether pid, or one of its ancestors, runs image.
func underImage(pid, image string, images, parents map[string]string) bool {
	for range maxDepth {
		if pid == "" {
			return false
		}
		if images[pid] == image {
			return true
		}
		pid = parents[pid]
	}
	return false
}

// nodeModules is the outermost node_modules directory that holds dir, or
// "" when none does.
func nodeModules(dir string) string {
	const nm = string(filepath.Separator) + "node_modules"
	i := strings.Index(dir+string(filepath.Separator), nm+string(filepath.Separator))
	if i < 0 {
		return ""
	}
	return dir[:i+len(nm)]
}

// programs keeps one record per program run. Where the egress observer
// watched, its exec records are exact (every execve, synchronously, with
// whether the program was there to run) and are the only ones read: the
// process observer's samples may catch a fork before its exec, still
// showing the server's own command line. Elsewhere one record per
// process, as every reader of process records keeps them (programs.Ran).
func programs(recs []observers.Record, egress bool) []observers.Record {
	if !egress {
		return ran.Ran(recs)
	}
	var out []observers.Record
	for _, r := range recs {
		if r.Observer == "egress" && r.Data[observers.KeyOp] == observers.OpExec && r.Data[observers.KeyStart] != "true" {
			out = append(out, r)
		}
	}
	return out
}

// program is the base name of what a process record ran.
func program(r observers.Record) string {
	if v := r.Data[observers.KeyProg]; v != "" {
		return v
	}
	if a := packs.Argv(r); len(a) > 0 {
		return path.Base(filepath.ToSlash(a[0]))
	}
	for _, k := range []string{observers.KeyPath, observers.KeyExe, observers.KeyComm} {
		if v := r.Data[k]; v != "" {
			return path.Base(filepath.ToSlash(v))
		}
	}
	return ""
}

// execName is the program an exec record asks for: the base name of the
// path the kernel was given (each try of a PATH search names the same
// one), else what program says.
func execName(r observers.Record) string {
	if r.Observer == "egress" && r.Data[observers.KeyPath] != "" {
		return path.Base(filepath.ToSlash(r.Data[observers.KeyPath]))
	}
	return program(r)
}

// pathOf is the file an exec record ran or tried: the egress observer's
// path, the process observer's executable.
func pathOf(r observers.Record) string {
	if r.Observer == "egress" {
		return r.Data[observers.KeyPath]
	}
	return r.Data[observers.KeyExe]
}

// commandLine is a process record's command line without its pid, its
// program shown as shownPath shows it.
func commandLine(p *packs.Pass, r observers.Record) string {
	a := packs.Argv(r)
	if len(a) == 0 {
		return program(r)
	}
	if strings.HasPrefix(a[0], "/") {
		a[0] = shownPath(p, a[0])
	}
	s := strings.Join(a, " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// argvText is a record's argv for evidence, as JSON, its program shown
// as shownPath shows it; past maxArgvText bytes the arguments that do not
// fit whole are left out ("…" stands for them), so no argument is cut in
// the middle.
func argvText(p *packs.Pass, r observers.Record) string {
	a := packs.Argv(r)
	if len(a) > 0 && strings.HasPrefix(a[0], "/") {
		a[0] = shownPath(p, a[0])
	}
	for n := len(a); ; n-- {
		shown := a[:n]
		if n < len(a) {
			shown = append(shown[:n:n], "…")
		}
		b, _ := json.Marshal(shown)
		if len(b) <= maxArgvText || n == 0 {
			return string(b)
		}
	}
}

// maxArgvText bounds the argv one line of evidence shows.
const maxArgvText = 400

// systemDirs hold programs at the same place on every machine of a
// system; a path below them is shown as it is.
var systemDirs = []string{"/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/lib", "/usr/libexec", "/lib", "/usr/share"}

// shownPath shows a program's path without the host's own directories:
// in the sandbox as is (the report names it {sandbox}), in the server's
// install directory or the temp directory as {install}/... or {tmp}/...,
// in a system directory (/usr/bin, /usr/lib/git-core, ...) as is, and
// anywhere else (a user's ~/.local/bin, a version manager's directory,
// /usr/local/...) as its bare name.
func shownPath(p *packs.Pass, at string) string {
	if at == "" || !filepath.IsAbs(at) {
		return at
	}
	if p.Sandbox != nil && within(at, p.Sandbox.Top) {
		return at
	}
	if within(at, p.Install) {
		return stablePath(p, at)
	}
	for _, d := range systemDirs {
		if within(at, d) {
			return at
		}
	}
	for _, t := range tempDirs() {
		if within(at, t) {
			return stablePath(p, at)
		}
	}
	return path.Base(filepath.ToSlash(at))
}
