package environ

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrNotFound is wrapped by the error [LookPath] returns when no executable
// file was found.
var ErrNotFound = errors.New("executable file not found")

// LookPath resolves the command a server is started with, the way the
// server's own environment would, and returns an absolute path:
//
//   - an absolute name is checked as it is;
//   - a relative name with a slash resolves against cwd (the directory the
//     harness was started from, not the sandbox);
//   - a bare name is searched in pathEnv, the PATH of the environment the
//     server gets (from [Build]), never the harness's own PATH. Empty and
//     relative PATH entries are skipped, so a bare name never resolves
//     against the current directory.
//
// On Windows a name without an extension also matches with each extension
// of PATHEXT. The error names the command and the PATH searched.
func LookPath(name, pathEnv, cwd string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("command %q: %w (empty name)", name, ErrNotFound)
	}
	if hasSlash(name) || filepath.IsAbs(name) {
		p := name
		if !filepath.IsAbs(p) {
			if cwd == "" {
				wd, err := os.Getwd()
				if err != nil {
					return "", fmt.Errorf("command %q: %w", name, err)
				}
				cwd = wd
			}
			p = filepath.Join(cwd, p)
		}
		found, err := executable(filepath.Clean(p))
		if err != nil {
			return "", fmt.Errorf("command %q: %s: %w", name, p, err)
		}
		return found, nil
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if found, err := executable(filepath.Join(dir, name)); err == nil {
			return found, nil
		}
	}
	return "", &NotFoundError{Name: name, PATH: pathEnv}
}

// NotFoundError is a bare command name found in no entry of the server's
// PATH. Its message does not quote the PATH (a report would carry the
// host's whole PATH); Detail does, for sealmark doctor.
type NotFoundError struct {
	Name string
	PATH string // the PATH searched
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("command %q: not found on the sandbox's PATH (see `sealmark doctor`)", e.Name)
}

// Detail is the message with the PATH searched.
func (e *NotFoundError) Detail() string {
	return fmt.Sprintf("command %q: %v in PATH %s", e.Name, ErrNotFound, e.PATH)
}

// Is makes a NotFoundError match ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// executable returns p (or, on Windows, p with a PATHEXT extension) when it
// names an executable regular file.
func executable(p string) (string, error) {
	if runtime.GOOS != "windows" {
		return p, isExecutable(p)
	}
	if ext := filepath.Ext(p); ext != "" && hasPathExt(ext) {
		return p, isExecutable(p)
	}
	for _, ext := range pathExts() {
		if isExecutable(p+ext) == nil {
			return p + ext, nil
		}
	}
	return "", ErrNotFound
}

func isExecutable(p string) error {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ErrNotFound
	case err != nil:
		return err
	case fi.IsDir():
		return fmt.Errorf("%w (a directory)", ErrNotFound)
	case runtime.GOOS != "windows" && fi.Mode()&0o111 == 0:
		return fmt.Errorf("%w (not executable: mode %v)", ErrNotFound, fi.Mode().Perm())
	}
	return nil
}

// pathExts lists the harness's PATHEXT, or Windows' default.
func pathExts() []string {
	v := os.Getenv("PATHEXT")
	if v == "" {
		v = ".COM;.EXE;.BAT;.CMD"
	}
	var exts []string
	for _, e := range strings.Split(strings.ToLower(v), ";") {
		if strings.HasPrefix(e, ".") {
			exts = append(exts, e)
		}
	}
	return exts
}

func hasPathExt(ext string) bool {
	for _, e := range pathExts() {
		if strings.EqualFold(e, ext) {
			return true
		}
	}
	return false
}

// hasSlash reports whether name is a path rather than a bare command name.
func hasSlash(name string) bool {
	return strings.Contains(name, "/") || (runtime.GOOS == "windows" && strings.Contains(name, `\`))
}
