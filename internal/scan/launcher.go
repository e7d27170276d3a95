package scan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Launchers a client configuration may start a server with. Direct is a
// program or a path, started as written.
const (
	Direct = "direct"
	NPX    = "npx"
	UVX    = "uvx"
	Pipx   = "pipx"
	Docker = "docker"
)

// launch is an entry's command seen through its launcher.
type launch struct {
	kind string
	pkg  string   // the package (npx, uvx, pipx) or image (docker)
	bin  string   // npx -p PKG BIN: the program to run from the package
	args []string // the server's own arguments
}

// parseLaunch tells the launcher from the command and splits its options
// from the server's arguments.
func parseLaunch(command string, args []string) (launch, error) {
	base := strings.TrimSuffix(filepath.Base(command), ".cmd")
	base = strings.TrimSuffix(base, ".exe")
	switch {
	case base == "npx":
		return parseNPX(args)
	case base == "uvx":
		return parsePython(UVX, "--from", args)
	case base == "pipx" && len(args) > 0 && args[0] == "run":
		return parsePython(Pipx, "--spec", args[1:])
	case base == "docker" && len(args) > 0 && args[0] == "run":
		return launch{kind: Docker}, nil
	}
	return launch{kind: Direct, args: args}, nil
}

// parseNPX reads npx's options: -y/--yes, -q/--quiet, -p/--package PKG and
// "--"; the first other word is the package (or, after -p, the program).
func parseNPX(args []string) (launch, error) {
	l := launch{kind: NPX}
	positional := ""
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-y" || a == "--yes" || a == "-q" || a == "--quiet":
		case a == "-p" || a == "--package":
			if i+1 >= len(args) {
				return l, fmt.Errorf("npx %s without a package", a)
			}
			i++
			l.pkg = args[i]
		case strings.HasPrefix(a, "--package="):
			l.pkg = strings.TrimPrefix(a, "--package=")
		case a == "--":
			if i+1 < len(args) {
				positional = args[i+1]
				i += 2
			}
		case strings.HasPrefix(a, "-"):
			return l, fmt.Errorf("npx option %s is not one scan understands (-y, -q, -p PKG)", a)
		default:
			positional = a
			i++
		}
		if positional != "" {
			break
		}
	}
	if positional == "" && l.pkg == "" {
		return l, errors.New("npx without a package")
	}
	if l.pkg == "" {
		l.pkg = positional
	} else {
		l.bin = positional
	}
	if i < len(args) {
		l.args = args[i:]
	}
	if !npmSpec.MatchString(l.pkg) {
		return l, fmt.Errorf("npx package %q: want a registry package NAME or NAME@VERSION", l.pkg)
	}
	return l, nil
}

// npmSpec is a registry package, scoped or not, with an optional version
// or tag; never a path, URL or git reference.
var npmSpec = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*(@[A-Za-z0-9._^~<>=*+|-]+)?$`)

// splitSpec is a package spec's name and version ("" when none).
func splitSpec(spec string) (name, version string) {
	at := strings.LastIndex(spec, "@")
	if at <= 0 {
		return spec, ""
	}
	return spec[:at], spec[at+1:]
}

// Fetcher installs launchers' packages before the contained start,
// outside the sandbox, each into its own directory under Dir with the
// package manager's own cache, so the server itself runs without network.
type Fetcher struct {
	// Dir holds one install directory per package spec.
	Dir string
	// Env is the package manager's environment (the caller's: HOME, npm's
	// cache and proxy settings).
	Env []string
	// Timeout bounds one fetch; default 5 minutes.
	Timeout time.Duration

	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

// maxFetchLog bounds what a failed fetch's message quotes of its output.
const maxFetchLog = 2048

// lock serializes the fetches of one install directory.
func (f *Fetcher) lock(dir string) func() {
	f.mu.Lock()
	if f.locks == nil {
		f.locks = map[string]*sync.Mutex{}
	}
	m := f.locks[dir]
	if m == nil {
		m = &sync.Mutex{}
		f.locks[dir] = m
	}
	f.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// npm installs the package of an npx entry (npm install --prefix, install
// scripts off: they would run outside the sandbox) and returns the command
// that runs its program directly (node SCRIPT for a JavaScript program)
// and whether the registry was asked: a pinned version already installed
// is not fetched again.
func (f *Fetcher) npm(ctx context.Context, l launch) (command string, args []string, fetched bool, err error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", nil, false, errors.New("npx entry: npm is not installed, so the package cannot be fetched")
	}
	dir := filepath.Join(f.Dir, "npm", strings.ReplaceAll(l.pkg, "/", "__"))
	defer f.lock(dir)()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, false, fmt.Errorf("npx entry: %v", err)
	}
	name, version := splitSpec(l.pkg)
	pkgDir := filepath.Join(dir, "node_modules", filepath.FromSlash(name))
	if exactVersion.MatchString(version) && installedVersion(pkgDir) == version {
		// A pinned version already fetched: nothing to ask the registry.
		command, args, err := npmCommand(pkgDir, name, l)
		return command, args, false, err
	}
	if err := f.run(ctx, dir, nil, npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", l.pkg); err != nil {
		return "", nil, true, fmt.Errorf("fetching %s with npm install failed %v", l.pkg, err)
	}
	command, args, err = npmCommand(pkgDir, name, l)
	return command, args, true, err
}

// run runs a package manager in dir with the Fetcher's environment plus
// env, bounded by Timeout; its error is "(why): the end of its output".
func (f *Fetcher) run(ctx context.Context, dir string, env []string, program string, args ...string) error {
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Env = append(slices.Clone(f.Env), env...)
	cmd.Dir = dir
	out := &tail{max: maxFetchLog}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		why := err.Error()
		if ctx.Err() != nil {
			why = "no answer within " + timeout.String()
		}
		return fmt.Errorf("(%s): %s", why, strings.TrimSpace(out.String()))
	}
	return nil
}

// exactVersion is a pinned semantic version: 1.2.3, 2026.8.31, 1.0.0-beta.1.
var exactVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// installedVersion is the version of the package installed in pkgDir, or "".
func installedVersion(pkgDir string) string {
	f, err := os.Open(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		return ""
	}
	defer f.Close()
	var meta struct{ Version string }
	if json.NewDecoder(io.LimitReader(f, MaxConfigBytes)).Decode(&meta) != nil {
		return ""
	}
	return meta.Version
}

// npmCommand is the command that runs the installed package's program.
func npmCommand(pkgDir, name string, l launch) (string, []string, error) {
	script, err := npmBin(pkgDir, name, l.bin)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %v", l.pkg, err)
	}
	if isNodeScript(script) {
		return "node", append([]string{script}, l.args...), nil
	}
	return script, l.args, nil
}

// npmBin is the absolute path of the package's program: the one named bin,
// else the one named like the package, else its only one.
func npmBin(pkgDir, name, bin string) (string, error) {
	f, err := os.Open(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		return "", fmt.Errorf("installed, but no package.json: %v", err)
	}
	defer f.Close()
	var meta struct {
		Name string          `json:"name"`
		Bin  json.RawMessage `json:"bin"`
	}
	if err := json.NewDecoder(io.LimitReader(f, MaxConfigBytes)).Decode(&meta); err != nil {
		return "", fmt.Errorf("package.json: %v", err)
	}
	bins := map[string]string{}
	var one string
	if json.Unmarshal(meta.Bin, &one) == nil && one != "" {
		bins[name[strings.LastIndex(name, "/")+1:]] = one
	} else if err := json.Unmarshal(meta.Bin, &bins); err != nil || len(bins) == 0 {
		return "", errors.New("the package has no program (no bin in package.json)")
	}
	short := name[strings.LastIndex(name, "/")+1:]
	rel, ok := bins[bin]
	if !ok && bin == "" {
		if rel, ok = bins[short]; !ok && len(bins) == 1 {
			for _, v := range bins {
				rel, ok = v, true
			}
		}
	}
	if !ok {
		names := make([]string, 0, len(bins))
		for k := range bins {
			names = append(names, k)
		}
		return "", fmt.Errorf("no program %q among the package's: %s", cmpOr(bin, short), strings.Join(names, ", "))
	}
	script := filepath.Join(pkgDir, filepath.FromSlash(rel))
	if r, err := filepath.Rel(pkgDir, script); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("its program %q leaves the package", rel)
	}
	return script, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// isNodeScript reports whether a program is JavaScript: by extension, or
// a first line naming node.
func isNodeScript(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".js", ".mjs", ".cjs":
		return true
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 128)
	n, _ := io.ReadFull(f, head)
	line, _, _ := strings.Cut(string(head[:n]), "\n")
	return strings.HasPrefix(line, "#!") && strings.Contains(line, "node")
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
