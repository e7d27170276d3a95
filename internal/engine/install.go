package engine

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/sealmark/sealmark/internal/environ"
)

// packageMarkers name a package's root directory.
var packageMarkers = []string{"package.json", "pyproject.toml", "setup.py", "Cargo.toml", "go.mod"}

// installDir is the server's own install directory ({install}): the
// package directory holding its entry script, the first argument (or word
// of --start) naming an existing file, or else its program when given as
// a path. The package directory is the nearest one above the file holding
// a package marker (package.json, pyproject.toml, ...), at most six levels
// up; without one it is the file's own directory. "" when nothing names a
// file. Only names are looked at, never contents.
func installDir(cfg Config, vars map[string]string) string {
	words := cfg.Args
	command := cfg.Command
	if cfg.Start != "" {
		fields := strings.Fields(cfg.Start)
		command, words = fields[0], fields[1:]
	}
	for _, w := range words {
		if dir := packageOf(w, cfg.Cwd, vars); dir != "" {
			return dir
		}
	}
	if strings.ContainsRune(command, filepath.Separator) {
		return packageOf(command, cfg.Cwd, vars)
	}
	return ""
}

// packageOf is the package directory of the file an argument names, or "".
func packageOf(arg, cwd string, vars map[string]string) string {
	p, err := environ.Expand(arg, vars)
	if err != nil || p == "" || strings.HasPrefix(p, "-") {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	dir := filepath.Dir(p)
	for d, i := dir, 0; i < 6; i, d = i+1, filepath.Dir(d) {
		for _, m := range packageMarkers {
			if _, err := os.Stat(filepath.Join(d, m)); err == nil {
				return d
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return dir
}

// listener6 is the loopback listener's [::1] URL, "" without one.
func (e *Engine) listener6() string {
	if e.watch == nil || e.watch.loopback == nil {
		return ""
	}
	return e.watch.loopback.URL6()
}
