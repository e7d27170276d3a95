package config

import (
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/netguard"
	"github.com/sealmark/sealmark/packs"
)

// Check reports the settings no run can use, each problem naming its keys
// and where their values came from, all problems together:
//   - no server: neither server.command nor server.url;
//   - server.command and server.url both set without server.start;
//   - server.url not an http or https URL of a loopback host (the harness
//     contacts nothing else), {port} standing for any port;
//   - server.start without server.url, or server.headers without server.url;
//   - sandbox.max_mib or a timeout not above zero, a timeout below
//     MinTimeout, sandbox.max_mib above MaxMiB or a timeout above
//     MaxTimeout;
//   - a server.headers entry holding CR, LF or NUL (header injection);
//   - --no-sandbox with --keep-sandbox or sandbox.layers_off;
//   - sandbox.dir not a writable directory, or on /proc, /sys or /dev;
//   - fail_on not one of low, medium, high, critical;
//   - a server.files path that escapes the sandbox ("../x", an absolute path,
//     "{sandbox}/../x") or names the sandbox root itself, or content above
//     MaxFileBytes;
//   - a server.env entry with an invalid name.
//
// Pack names are checked by CheckPacks, which needs the list of packs, and
// containment layers by CheckLayers, which needs the list of layers.
func (r *Resolved) Check() error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	command, url, start := r.Command != "", r.URL != "", r.Start != ""
	switch {
	case !command && !url:
		add("no server: set server.command (or give the command after --) or server.url")
	case command && url && !start:
		add("%s and %s are both set without server.start: keep one, or set server.start to start the HTTP server at server.url", r.named("server.command"), r.named("server.url"))
	}
	if url {
		if why := urlProblem(r.URL); why != "" {
			add("%s: %s", r.at("server.url"), why)
		}
	}
	if start && !url {
		add("%s needs server.url, the URL the started server answers on", r.named("server.start"))
	}
	if len(r.Headers) > 0 && !url {
		add("%s apply only to an HTTP server: set server.url", r.named("server.headers"))
	}
	switch {
	case r.Jobs < 0:
		add("%s: want 0 (one per CPU) or more packs at once, got %d", r.at("--jobs"), r.Jobs)
	case r.Jobs > MaxJobs:
		add("%s: %d packs at once is more than the catalogue has; at most %d", r.at("--jobs"), r.Jobs, MaxJobs)
	}
	switch {
	case r.MaxMiB <= 0:
		add("%s: want a positive number of MiB, got %d", r.at("sandbox.max_mib"), r.MaxMiB)
	case r.MaxMiB > MaxMiB:
		add("%s: %d MiB is more than any sandbox needs; at most %d (64 GiB)", r.at("sandbox.max_mib"), r.MaxMiB, MaxMiB)
	}
	for _, t := range []struct {
		key string
		d   time.Duration
	}{{"timeouts.start", r.StartTimeout}, {"timeouts.call", r.CallTimeout}, {"timeouts.probe", r.ProbeTimeout}, {"timeouts.run", r.RunTimeout}} {
		switch {
		case t.d <= 0:
			add("%s: want a positive duration, got %s", r.at(t.key), t.d)
		case t.d < MinTimeout:
			add("%s: %s is too short for any server to answer; want at least %s", r.at(t.key), t.d, MinTimeout)
		case t.d > MaxTimeout:
			add("%s: %s is longer than any run should wait; at most %s", r.at(t.key), t.d, strings.TrimSuffix(MaxTimeout.String(), "0m0s"))
		}
	}
	for _, h := range r.Headers {
		if strings.ContainsAny(h.Name+h.Value, "\r\n\x00") {
			add("%s: a header cannot hold a line break (CR or LF) or NUL: it would inject a header", r.at("server.headers."+h.Name))
		}
	}
	if r.NoSandbox {
		for _, other := range []struct {
			key string
			set bool
		}{{"--keep-sandbox", r.KeepSandbox}, {"sandbox.layers_off", len(r.LayersOff) > 0}} {
			if other.set {
				add("%s and %s: without a sandbox there is none to keep and no containment layer to turn off; drop one", r.named("--no-sandbox"), r.named(other.key))
			}
		}
	}
	if r.SandboxDir != "" {
		if why := sandboxDirProblem(r.SandboxDir); why != "" {
			add("%s: %s", r.at("sandbox.dir"), why)
		}
	}
	if _, err := packs.ParseFailOn(r.FailOn); err != nil {
		add("%s: %v", r.at("fail_on"), err)
	}
	for _, f := range r.Files {
		key := "server.files." + f.Path
		if why := escapes(f.Path); why != "" {
			add("%s: %s; write a path relative to the sandbox root, or starting with {sandbox}/", r.at(key), why)
		}
		if len(f.Content) > MaxFileBytes {
			add("%s: content is %d bytes; at most %d", r.at(key), len(f.Content), MaxFileBytes)
		}
		if f.Dir() && f.Content != "" {
			add("%s: a path ending in / makes an empty directory; give it no content (\"\")", r.at(key))
		}
	}
	for _, kv := range r.Env {
		if !validEnvName(kv.Name) {
			add("%s: not a valid variable name", r.at("server.env."+kv.Name))
		}
	}
	return errors.Join(errs...)
}

// CheckPacks reports every name in packs, and every pack named under hints,
// that is not among known.
func (r *Resolved) CheckPacks(known []string) error {
	sorted := slices.Sorted(slices.Values(known))
	list := "known: " + strings.Join(sorted, ", ")
	var errs []error
	for _, name := range r.Packs {
		if !slices.Contains(known, name) {
			errs = append(errs, fmt.Errorf("%s: unknown pack %q%s (%s)", r.at("packs"), name, nearest(name, sorted), list))
		}
	}
	hinted := make([]string, 0, len(r.Hints))
	for name := range r.Hints {
		hinted = append(hinted, name)
	}
	sort.Strings(hinted)
	for _, name := range hinted {
		if !slices.Contains(known, name) {
			errs = append(errs, fmt.Errorf("%s: hints for unknown pack %q%s (%s)", r.at("hints."+name), name, nearest(name, sorted), list))
		}
	}
	return errors.Join(errs...)
}

// CheckLayers reports every name in sandbox.layers_off that is not among
// known, the containment layers the engine can turn off (the CLI passes
// engine.Layers): "sealmark.yaml:7: sandbox.layers_off: unknown containment
// layer "selinux" (known: landlock, seccomp, namespaces, cgroup, fsize, quota, secrets)".
// known is listed in its own order.
func (r *Resolved) CheckLayers(known []string) error {
	list := "known: " + strings.Join(known, ", ")
	var errs []error
	for _, name := range r.LayersOff {
		if !slices.Contains(known, name) {
			errs = append(errs, fmt.Errorf("%s: unknown containment layer %q%s (%s)", r.at("sandbox.layers_off"), name, nearest(name, known), list))
		}
	}
	return errors.Join(errs...)
}

// DidYouMean is " (did you mean X?)" for the name in known nearest to
// name, or "" when none is close: the suggestion every unknown key, value
// and flag gets.
func DidYouMean(name string, known []string) string { return nearest(name, known) }

// nearest is " (did you mean X?)" for the name in known nearest to name, or "".
func nearest(name string, known []string) string {
	best, bestDist := "", max(2, len(name)/3)+1
	for _, k := range known {
		if d := distance(strings.ToLower(name), strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + best + "?)"
}

// at prefixes key with where its value came from: "sealmark.yaml:3:
// sandbox.max_mib", "flag --max-mib: sandbox.max_mib".
func (r *Resolved) at(key string) string {
	if from := r.from(key); from != "" {
		return from + ": " + key
	}
	return key
}

// At is key prefixed with where its value came from, as the messages of
// Check name it: "sealmark.yaml:3: sandbox.dir", "flag --json: report.json".
func (r *Resolved) At(key string) string { return r.at(key) }

// named is key followed by its origin in parentheses, for a message naming
// several keys.
func (r *Resolved) named(key string) string {
	if from := r.from(key); from != "" {
		return key + " (" + from + ")"
	}
	return key
}

// MinTimeout is the shortest timeout Check accepts: below it no server,
// however fast, could answer, and every verdict would be a timeout.
const MinTimeout = 100 * time.Millisecond

// MaxTimeout is the longest timeout Check accepts (24h): a longer one is a
// typo or an overflow, and would let a stuck server hold the run for days.
const MaxTimeout = 24 * time.Hour

// MaxMiB is the largest sandbox.max_mib Check accepts (65536, 64 GiB): a
// larger limit is a typo, and a root harness would try to make a
// filesystem of that size.
const MaxMiB = 65536

// MaxJobs is the largest --jobs Check accepts: no run has more packs.
const MaxJobs = 64

// pseudoFS are the kernel's own filesystems: no sandbox can live there.
var pseudoFS = []string{"/proc", "/sys", "/dev"}

// sandboxDirProblem says why dir cannot hold the run's sandbox: it is on a
// kernel pseudo-filesystem, not a directory, or not writable (a directory
// is made in it and removed again). "" when it can.
func sandboxDirProblem(dir string) string {
	abs, err := filepath.Abs(dir)
	if err == nil {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		for _, p := range pseudoFS {
			if abs == p || strings.HasPrefix(abs, p+"/") {
				return fmt.Sprintf("%q is on the kernel's %s filesystem; the sandbox is made under a writable directory", dir, p)
			}
		}
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return fmt.Sprintf("%q is not a directory; the sandbox is made under an existing directory", dir)
	}
	probe, err := os.MkdirTemp(dir, ".sealmark-check-")
	if err != nil {
		return fmt.Sprintf("%q is not writable (%v); the sandbox is made under a writable directory", dir, errors.Unwrap(err))
	}
	_ = os.Remove(probe)
	return ""
}

// escapes says why a server.files path would land outside the sandbox root,
// or returns "" when it stays inside. The path is relative to the root or
// starts with {sandbox}/; backslashes count as separators.
func escapes(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	rest, placed := strings.CutPrefix(p, "{sandbox}")
	if placed {
		if rest != "" && !strings.HasPrefix(rest, "/") {
			return "the path starts with a placeholder other than {sandbox}"
		}
		rest = strings.TrimPrefix(rest, "/")
	}
	switch {
	case rest == "" || path.Clean(rest) == ".":
		return "the path names the sandbox root itself, not a file in it"
	case strings.HasPrefix(rest, "/") || len(rest) >= 2 && rest[1] == ':':
		return "an absolute path outside {sandbox} escapes the sandbox"
	case strings.HasPrefix(rest, "{"):
		return "the path starts with a placeholder other than {sandbox}"
	}
	if clean := path.Clean(rest); clean == ".." || strings.HasPrefix(clean, "../") {
		return "the path escapes the sandbox"
	}
	return ""
}

// urlProblem says why raw is not a URL the harness may contact, without
// quoting it (it may hold a password); "" when it is one.
func urlProblem(raw string) string {
	u, err := neturl.Parse(strings.ReplaceAll(raw, "{port}", "1"))
	switch {
	case err != nil:
		return "not a URL"
	case u.Scheme != "http" && u.Scheme != "https":
		return "want an http or https URL such as http://127.0.0.1:{port}/mcp"
	case !netguard.Loopback(u.Hostname()):
		return fmt.Sprintf("the harness only contacts loopback addresses (127.0.0.0/8, ::1, localhost), not %q", u.Hostname())
	}
	return ""
}
