package contain

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/internal/launch"
)

// neededFor lists the host paths a server needs: its program's directory,
// the harness binary's (the shim, and the sandbox's sm-* links when they
// run it rather than the helper copied into the sandbox), each as
// ProgramTree gives it, every absolute path among its arguments that
// exists, and the declared unix sockets, each also by the path its links
// lead to.
func neededFor(spec launch.Spec, exe string, services []Service) []string {
	v := []string{ProgramTree(spec.Path), ProgramTree(exe)}
	for _, a := range spec.Args {
		if filepath.IsAbs(a) {
			if _, err := os.Lstat(a); err == nil {
				v = append(v, filepath.Clean(a))
			}
		}
	}
	v = append(v, serviceSockets(services)...)
	var out []string
	for _, p := range v {
		out = append(out, p)
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
			out = append(out, real)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// visibleFor lists what a server needs from the host (neededFor) that a
// private /tmp would hide. setupMounts keeps those beneath a host temp
// directory visible, read-only; the rest of the host is visible anyway.
// Beneath a private temp directory a single file or directory is not
// enough: a script loads its siblings and its packages (node_modules, a
// virtualenv) found through links, so the whole tree the path was found
// in, the entry right below /tmp or /var/tmp, stays visible, and so does
// the tree its links lead to.
func visibleFor(needed []string) []string {
	var out []string
	for _, p := range needed {
		out = append(out, tmpTree(p))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ProgramTree is what a contained server's namespace keeps visible of the
// host for program (an absolute path): its directory, or, when that
// directory is a host temp directory itself (a binary built with go build
// -o /tmp/sealmark), the program alone: the whole host /tmp cannot show
// through the server's private one, and need not.
func ProgramTree(program string) string {
	dir := filepath.Dir(program)
	if slices.Contains(hostTmps, dir) {
		return program
	}
	return dir
}

// hostTmps are the shared temporary directories a contained server gets
// privately (the sandbox's tmp is bound there).
var hostTmps = []string{"/tmp", "/var/tmp"}

// tmpTree is the entry right below a host temp directory that holds p
// (/tmp/ci-1234 for /tmp/ci-1234/srv/index.js), or p itself when p is not
// beneath one, or is one.
func tmpTree(p string) string {
	for _, t := range hostTmps {
		if rest, ok := strings.CutPrefix(p, t+"/"); ok && rest != "" {
			first, _, _ := strings.Cut(rest, "/")
			return filepath.Join(t, first)
		}
	}
	return p
}

// relUnder returns p relative to dir when p is dir or beneath it.
func relUnder(p, dir string) (string, bool) {
	if p == dir {
		return ".", true
	}
	if strings.HasPrefix(p, dir+"/") {
		return p[len(dir)+1:], true
	}
	return "", false
}

func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if _, ok := relUnder(p, d); ok {
			return true
		}
	}
	return false
}

func within(p, dir string) bool { _, ok := relUnder(p, dir); return ok }
