// Package hostpath finds the paths on this machine that a server's
// arguments or environment name, and the sandbox path offered for each, the
// way sealmark init and sealmark scan replace them.
//
//	prefix, p, relative, ok := hostpath.Find("--root=/home/me/notes", cwd) // "--root=", "/home/me/notes", false, true
//	offer := hostpath.SandboxName(p, map[string]bool{})                  // "{sandbox}/notes"
//	offer = hostpath.Offer(p, cwd, map[string]bool{})                     // "{sandbox}" when /home/me/notes is a directory
//
// A bare word is never a path (Find); the value of a path flag (--config
// x) or of a path variable (CONFIG_PATH=x) is (FindNamed). Credentials
// tells a credentials file by its name.
package hostpath

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/sealmark/sealmark/internal/redact"
)

// Find finds a path on this machine in one argument or env value, alone
// or as the value of --opt=PATH: an absolute path (/x, ~/x, C:\x), or a
// relative one written as such (./x, ../x, . or ..) that exists in cwd. A
// bare word (start, notes.txt) is never a path, even when a file of that
// name exists in cwd, except as the value of a path flag (--config=x, see
// PathFlag). Values holding a placeholder, the server's own program (a
// program file, an executable, a project directory) and plain flags are
// not paths.
func Find(s, cwd string) (prefix, p string, relative, ok bool) {
	if s == "" || redact.HasPlaceholder(s) {
		return "", "", false, false
	}
	p = s
	named := false
	if strings.HasPrefix(s, "-") {
		opt, v, found := strings.Cut(s, "=")
		if !found || v == "" {
			return "", "", false, false
		}
		prefix, p, named = opt+"=", v, PathFlag(opt)
	}
	return find(prefix, p, cwd, named)
}

// FindNamed is Find for a value known to name a path: the argument after
// a path flag (--config x) or the value of a path variable (PathEnv). A
// bare word that exists in cwd is a path there.
func FindNamed(s, cwd string) (p string, relative, ok bool) {
	if s == "" || redact.HasPlaceholder(s) || strings.HasPrefix(s, "-") {
		return "", false, false
	}
	_, p, relative, ok = find("", s, cwd, true)
	return p, relative, ok
}

func find(prefix, p, cwd string, named bool) (string, string, bool, bool) {
	if Absolute(p) {
		if programFile(expandHome(p)) {
			return "", "", false, false
		}
		return prefix, p, false, true
	}
	if strings.HasPrefix(p, "-") || strings.ContainsAny(p, "\x00\n") {
		return "", "", false, false
	}
	if !named && !dotRelative(p) {
		return "", "", false, false
	}
	local := filepath.Join(cwd, p)
	if _, err := os.Lstat(local); err != nil || programFile(local) || projectDir(local) {
		return "", "", false, false
	}
	return prefix, p, true, true
}

// dotRelative reports whether p is written as a relative path: ., .., or
// starting with ./ or ../ (either slash).
func dotRelative(p string) bool {
	if p == "." || p == ".." {
		return true
	}
	for _, pre := range []string{"./", "../", `.\`, `..\`} {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}

// pathFlags are the options whose value is a path, written --opt VALUE or
// --opt=VALUE.
var pathFlags = map[string]bool{
	"--config": true, "--config-file": true, "--config-path": true, "--configfile": true,
	"--root": true, "--roots": true, "--dir": true, "--directory": true, "--path": true,
	"--file": true, "--workspace": true, "--workspace-dir": true, "--project": true,
	"--project-dir": true, "--project-root": true, "--data-dir": true, "--base-dir": true,
	"--allowed-dir": true, "--allow-dir": true, "--allowed-directories": true,
	"--spec": true, "--openapi": true, "--schema": true, "--db-path": true,
	"--cwd": true, "--repo": true, "--repository": true, "--env-file": true,
	"--key-file": true, "--credentials": true, "--cert": true, "--key": true,
}

// PathFlag reports whether the option opt (--config, --root, ...) takes a
// path as its value.
func PathFlag(opt string) bool { return pathFlags[strings.ToLower(opt)] }

// pathEnvSuffixes end the names of variables whose value is a path.
var pathEnvSuffixes = []string{"_PATH", "_FILE", "_DIR", "_DIRECTORY", "_ROOT", "_CONFIG"}

// PathEnv reports whether a variable named name holds a path by its name
// (CCLSP_CONFIG_PATH, OPENAPI_SPEC_FILE, DATA_DIR, ...).
func PathEnv(name string) bool {
	up := strings.ToUpper(name)
	for _, s := range pathEnvSuffixes {
		if strings.HasSuffix(up, s) {
			return true
		}
	}
	return false
}

// Absolute reports whether s is written as an absolute path on any
// platform, the way run's path warnings see it.
func Absolute(s string) bool {
	switch {
	case strings.HasPrefix(s, "/"), strings.HasPrefix(s, "~/"), s == "~":
		return true
	case len(s) >= 3 && s[1] == ':' && (s[2] == '\\' || s[2] == '/'):
		c := s[0] | 0x20
		return 'a' <= c && c <= 'z'
	}
	return false
}

func expandHome(p string) string {
	rest, ok := strings.CutPrefix(p, "~/")
	if !ok {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(home, rest)
}

// programExtensions are the extensions of a server's own program file.
var programExtensions = []string{".js", ".mjs", ".cjs", ".ts", ".py", ".rb", ".jar", ".php", ".pl", ".sh"}

// programFile reports whether p is an existing regular file that is a
// program: a known program extension, or executable.
func programFile(p string) bool {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	ext := strings.ToLower(filepath.Ext(p))
	for _, e := range programExtensions {
		if ext == e {
			return true
		}
	}
	return fi.Mode()&0o111 != 0
}

// projectMarkers make a directory the server's own project rather than data.
var projectMarkers = []string{"package.json", "pyproject.toml", "setup.py", "__init__.py", "__main__.py", "go.mod", "Cargo.toml", "deno.json"}

func projectDir(p string) bool {
	fi, err := os.Stat(p)
	if err != nil || !fi.IsDir() {
		return false
	}
	for _, m := range projectMarkers {
		if _, err := os.Stat(filepath.Join(p, m)); err == nil {
			return true
		}
	}
	return false
}

// SandboxName is {sandbox}/<last element of p>, made distinct from the
// names already taken; a path with no last element ("/", ".", "~") is
// {sandbox} itself.
func SandboxName(p string, taken map[string]bool) string {
	p = strings.TrimRight(p, `/\`)
	base := p[strings.LastIndexAny(p, `/\`)+1:]
	switch {
	case base == "" || base == "." || base == ".." || base == "~" || strings.HasSuffix(base, ":"):
		return "{sandbox}"
	case strings.ContainsAny(base, "{}") || !printable(base):
		base = "data"
	}
	name := base
	for i := 2; taken[name]; i++ {
		ext := filepath.Ext(base)
		name = fmt.Sprintf("%s-%d%s", strings.TrimSuffix(base, ext), i, ext)
	}
	taken[name] = true
	return "{sandbox}/" + name
}

func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// Offer is the sandbox path offered for p (a path Find returned): a
// directory on this machine is the server's root, so it is {sandbox}
// itself, where the sandbox's layout (ok.txt, root-evil, link-file, ...)
// lies and the fs pack's probes aim; anything else is SandboxName.
func Offer(p, cwd string, taken map[string]bool) string {
	if IsDir(p, cwd) {
		return "{sandbox}"
	}
	return SandboxName(p, taken)
}

// IsDir reports whether a path Find returned is an existing directory on
// this machine (~/ is the home directory, a relative path is under cwd).
func IsDir(p, cwd string) bool {
	p = expandHome(p)
	if !filepath.IsAbs(p) && !strings.HasPrefix(p, "/") {
		p = filepath.Join(cwd, p)
	}
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// WantsDir reports whether the sandbox path offered for p (a path Find
// returned) should be an empty directory staged before the server starts:
// p is a directory on this machine, or exists nowhere and has no extension
// (a server given a missing "notes" most likely wants a directory). A
// file's offer lies directly in {sandbox}, which exists.
func WantsDir(p, cwd string) bool {
	local := expandHome(p)
	if !filepath.IsAbs(local) && !strings.HasPrefix(local, "/") {
		local = filepath.Join(cwd, local)
	}
	st, err := os.Stat(local)
	if err != nil {
		return filepath.Ext(p) == ""
	}
	return st.IsDir()
}

// OwnProgram rewrites an argument that is a relative path to the server's
// own program (a program file or a project directory, see Find) existing
// under cwd, not above it, alone or as the value of --opt=PATH, to
// {cwd}/<path>: the server runs in the sandbox root, where the relative
// path does not exist. what is "program" or "project directory"; ok is
// false for any other argument.
func OwnProgram(s, cwd string) (rewritten, what string, ok bool) {
	prefix, p := "", s
	if strings.HasPrefix(s, "-") {
		opt, v, found := strings.Cut(s, "=")
		if !found || v == "" {
			return "", "", false
		}
		prefix, p = opt+"=", v
	}
	if p == "" || redact.HasPlaceholder(p) || Absolute(p) || strings.HasPrefix(p, "-") || strings.ContainsAny(p, "\x00\n") {
		return "", "", false
	}
	clean := filepath.Clean(p)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", "", false
	}
	local := filepath.Join(cwd, clean)
	switch {
	case programFile(local):
		what = "program"
	case projectDir(local):
		what = "project directory"
	default:
		return "", "", false
	}
	return prefix + "{cwd}/" + filepath.ToSlash(clean), what, true
}

// Local is the file on this machine a path Find returned names: ~/ is the
// home directory, a relative path lies under cwd.
func Local(p, cwd string) string {
	local := expandHome(p)
	if !filepath.IsAbs(local) && !strings.HasPrefix(local, "/") {
		local = filepath.Join(cwd, local)
	}
	return local
}

// IsFile reports whether a path Find returned is an existing regular file
// on this machine.
func IsFile(p, cwd string) bool {
	st, err := os.Stat(Local(p, cwd))
	return err == nil && st.Mode().IsRegular()
}
