package scan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// pySpec is a package index requirement: a name with optional extras and
// one version clause; never a path, URL or VCS reference.
var pySpec = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?((==|>=|<=|~=|!=|>|<)[A-Za-z0-9.*+!-]+)?$`)

// pyName is the program a requirement names: its name without extras or
// version.
func pyName(spec string) string {
	return spec[:len(spec)-len(strings.TrimLeft(spec, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"))]
}

// parsePython reads uvx's or pipx run's options: -q/--quiet and the
// option naming the package (from: --from for uvx, --spec for pipx); the
// first other word is the program, and the package when from is absent
// (uvx's NAME@VERSION is NAME==VERSION).
func parsePython(kind, from string, args []string) (launch, error) {
	l := launch{kind: kind}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-q" || a == "--quiet":
			continue
		case a == from:
			if i+1 >= len(args) {
				return l, fmt.Errorf("%s %s without a package", kind, a)
			}
			i++
			l.pkg = args[i]
			continue
		case strings.HasPrefix(a, from+"="):
			l.pkg = strings.TrimPrefix(a, from+"=")
			continue
		case strings.HasPrefix(a, "-"):
			return l, fmt.Errorf("%s option %s is not one scan understands (-q, %s PKG)", kind, a, from)
		}
		break
	}
	if i >= len(args) {
		return l, fmt.Errorf("%s without a program", kind)
	}
	program := args[i]
	l.args = args[i+1:]
	if kind == UVX {
		if name, version, ok := strings.Cut(program, "@"); ok {
			program = name
			if l.pkg == "" {
				l.pkg = name + "==" + version
			}
		}
	}
	if l.pkg == "" {
		l.pkg = program
	}
	l.bin = pyName(program)
	if !pySpec.MatchString(l.pkg) || l.bin == "" || l.bin != program {
		return l, fmt.Errorf("%s package %q: want a package index NAME, NAME==VERSION or NAME[EXTRA]", kind, l.pkg)
	}
	return l, nil
}

// python installs the package of a uvx or pipx run entry into its own
// directory under Dir (uv tool install with UV_TOOL_DIR and
// UV_TOOL_BIN_DIR there; pipx install with PIPX_HOME and PIPX_BIN_DIR
// there), with the manager's own cache, and returns the installed program.
// A pinned version (==) already installed is not fetched again.
func (f *Fetcher) python(ctx context.Context, l launch) (program string, fetched bool, err error) {
	tool := map[string]string{UVX: "uv", Pipx: "pipx"}[l.kind]
	path, err := exec.LookPath(tool)
	if err != nil {
		return "", false, fmt.Errorf("%s entry: %s is not installed, so %s cannot be fetched", l.kind, tool, l.pkg)
	}
	dir := filepath.Join(f.Dir, l.kind, strings.NewReplacer("/", "_", "=", "_", "[", "_", "]", "_", ",", "_", "<", "_", ">", "_", "~", "_", "!", "_", "*", "_").Replace(l.pkg))
	defer f.lock(dir)()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false, fmt.Errorf("%s entry: %v", l.kind, err)
	}
	bin := filepath.Join(dir, "bin", l.bin)
	if strings.Contains(l.pkg, "==") {
		if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() {
			return bin, false, nil
		}
	}
	var env, args []string
	switch l.kind {
	case UVX:
		env = []string{"UV_TOOL_DIR=" + filepath.Join(dir, "tools"), "UV_TOOL_BIN_DIR=" + filepath.Join(dir, "bin")}
		args = []string{"tool", "install", "--force", "--quiet", l.pkg}
	default:
		env = []string{"PIPX_HOME=" + filepath.Join(dir, "home"), "PIPX_BIN_DIR=" + filepath.Join(dir, "bin"), "PIPX_MAN_DIR=" + filepath.Join(dir, "man")}
		args = []string{"install", "--force", "--quiet", l.pkg}
	}
	if err := f.run(ctx, dir, env, path, args...); err != nil {
		return "", true, fmt.Errorf("fetching %s with %s %s failed %v", l.pkg, tool, strings.Join(args[:len(args)-3], " "), err)
	}
	if st, err := os.Stat(bin); err != nil || st.IsDir() {
		return "", true, errors.New(l.pkg + ": installed, but it has no program " + l.bin)
	}
	return bin, true, nil
}
