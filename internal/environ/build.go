package environ

import (
	"slices"
	"sort"
	"strings"
)

// KV is one environment variable.
type KV struct{ Name, Value string }

// String returns "Name=Value", the form exec.Cmd.Env takes.
func (kv KV) String() string { return kv.Name + "=" + kv.Value }

// Spec says how to build a server's environment. Its zero value builds an
// inherited environment from an empty caller: set Scrub for the default.
type Spec struct {
	// Scrub builds the environment from scratch (the default for a sandboxed
	// server). When false the environment is inherited: all of Caller, then
	// ServerEnv, then Canaries.
	Scrub bool
	// Bin, Home and Tmp are the sandbox's directories; used only when Scrub.
	// Bin goes first in PATH, Home is HOME (and on Windows USERPROFILE,
	// APPDATA and LOCALAPPDATA), Tmp is TEMP, TMP and TMPDIR.
	Bin, Home, Tmp string
	// KeepEnv (sandbox.keep_env) names variables copied from Caller when it
	// sets them; used only when Scrub.
	KeepEnv []string
	// ServerEnv (server.env), placeholders already expanded, in order.
	ServerEnv []KV
	// Canaries are applied last; the engine passes them for the first start
	// only (see [Canaries]).
	Canaries []KV
	// Caller is the harness's own environment, as os.Environ returns it.
	Caller []string
	// GOOS selects the platform's table: "windows" or anything else (POSIX).
	GOOS string
}

// Build returns the environment for a server, sorted by name with one entry
// per name, and what of it came from Caller, in the words the report's
// sandbox: line uses: "PATH (system part)", "LANG", a cache variable's name,
// a Windows essential's name, or a KeepEnv name. For an inherited
// environment (Scrub false) inherited is nil: everything came from Caller.
//
// The scrubbed base on POSIX:
//
//	PATH                       Bin, then Caller's PATH
//	HOME                       Home
//	USER, LOGNAME              sealmark
//	SHELL                      /bin/sh
//	TERM                       dumb
//	TEMP, TMP, TMPDIR          Tmp
//	LANG                       Caller's LANG, or C.UTF-8
//	npm_config_cache,          Caller's value or the tool's default location
//	UV_CACHE_DIR,              under Caller's home, only when that directory
//	UV_PYTHON_INSTALL_DIR      exists
//
// On Windows HOME, USERPROFILE, APPDATA and LOCALAPPDATA are all Home, PATH
// is joined with ";", names match in any letter case, and SYSTEMROOT,
// SYSTEMDRIVE, WINDIR, COMSPEC, PATHEXT, PROGRAMFILES and
// PROCESSOR_ARCHITECTURE are copied from Caller when set.
func Build(s Spec) (env []string, inherited []string) {
	caller := newVars(s.GOOS)
	for _, e := range s.Caller {
		if name, value, ok := split(e); ok && !caller.has(name) {
			caller.set(name, value) // the first wins, as with os.Getenv
		}
	}
	out := newVars(s.GOOS)
	if !s.Scrub {
		out = caller
	} else {
		inherited = base(out, caller, s)
		for _, name := range s.KeepEnv {
			if v, ok := caller.get(name); ok {
				out.set(name, v)
				if !slices.Contains(inherited, name) {
					inherited = append(inherited, name)
				}
			}
		}
	}
	for _, kv := range s.ServerEnv {
		out.set(kv.Name, kv.Value)
	}
	for _, kv := range s.Canaries {
		out.set(kv.Name, kv.Value)
	}
	return out.list(), inherited
}

// windowsEssentials are copied from the caller on Windows when set.
var windowsEssentials = []string{"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "PROGRAMFILES", "PROCESSOR_ARCHITECTURE"}

// base writes the sandbox base into out and returns what came from caller.
func base(out, caller *vars, s Spec) (inherited []string) {
	windows := s.GOOS == "windows"
	sep := ":"
	if windows {
		sep = ";"
	}
	path := s.Bin
	if p, ok := caller.get("PATH"); ok && p != "" {
		path += sep + p
		inherited = append(inherited, "PATH (system part)")
	}
	out.set("PATH", path)
	out.set("HOME", s.Home)
	if windows {
		out.set("USERPROFILE", s.Home)
		out.set("APPDATA", s.Home)
		out.set("LOCALAPPDATA", s.Home)
	}
	out.set("USER", "sealmark")
	out.set("LOGNAME", "sealmark")
	out.set("SHELL", "/bin/sh")
	out.set("TERM", "dumb")
	for _, name := range []string{"TEMP", "TMP", "TMPDIR"} {
		out.set(name, s.Tmp)
	}
	if lang, ok := caller.get("LANG"); ok && lang != "" {
		out.set("LANG", lang)
		inherited = append(inherited, "LANG")
	} else {
		out.set("LANG", "C.UTF-8")
	}
	if windows {
		for _, name := range windowsEssentials {
			if v, ok := caller.get(name); ok {
				out.set(name, v)
				inherited = append(inherited, name)
			}
		}
	}
	for _, c := range caches(caller, windows) {
		out.set(c.Name, c.Value)
		inherited = append(inherited, c.Name)
	}
	return inherited
}

// Value returns the value of name in env ("NAME=value" entries), or "" when
// it is not set. The last entry wins, as for exec.Cmd.
func Value(env []string, name string) string {
	v := ""
	for _, e := range env {
		if n, val, ok := split(e); ok && n == name {
			v = val
		}
	}
	return v
}

// split splits "NAME=value". A leading "=" belongs to the name (Windows
// keeps per-drive directories as "=C:=C:\dir").
func split(entry string) (name, value string, ok bool) {
	i := strings.Index(entry[min(1, len(entry)):], "=")
	if i < 0 {
		return "", "", false
	}
	i += min(1, len(entry))
	return entry[:i], entry[i+1:], true
}

// vars is a set of variables keyed by name, in any letter case on Windows.
type vars struct {
	fold bool
	m    map[string]KV
}

func newVars(goos string) *vars { return &vars{fold: goos == "windows", m: map[string]KV{}} }

func (v *vars) key(name string) string {
	if v.fold {
		return strings.ToUpper(name)
	}
	return name
}

func (v *vars) set(name, value string) { v.m[v.key(name)] = KV{name, value} }

func (v *vars) has(name string) bool { _, ok := v.m[v.key(name)]; return ok }

func (v *vars) get(name string) (string, bool) {
	kv, ok := v.m[v.key(name)]
	return kv.Value, ok
}

// list returns "NAME=value" entries sorted by name.
func (v *vars) list() []string {
	keys := make([]string, 0, len(v.m))
	for k := range v.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, v.m[k].String())
	}
	return out
}
