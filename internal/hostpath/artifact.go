package hostpath

import (
	"os"
	"path/filepath"
	"strings"
)

// manifests are the files that describe a project, in the order
// SARIFArtifact prefers them.
var manifests = []string{"package.json", "pyproject.toml", "go.mod", "Cargo.toml", "setup.py", "deno.json", "pom.xml", "build.gradle"}

// SARIFArtifact is the file SARIF results about a server point at, relative
// to the repository root (the nearest directory at or above cwd holding
// .git, else cwd) with forward slashes; "" when none is found. Code
// scanning refuses a whole upload when a result names no file, and shows
// an alert at a file that exists, so the file is, in order: the config
// file the run read (config, as given), the server's own program or
// script among command (placeholders expanded: {cwd} is cwd), or the
// project's manifest (package.json, pyproject.toml, go.mod, ...) in cwd
// or the repository root. Only a file that exists inside the repository is
// named.
func SARIFArtifact(cwd, config string, command []string) string {
	root := repoRoot(cwd)
	inRepo := func(p string) string {
		if p == "" {
			return ""
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			return ""
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return ""
		}
		return filepath.ToSlash(rel)
	}
	if a := inRepo(config); a != "" {
		return a
	}
	for _, c := range command {
		c = strings.ReplaceAll(c, "{cwd}", cwd)
		if _, v, ok := strings.Cut(c, "="); ok && strings.HasPrefix(c, "-") {
			c = v
		}
		if strings.Contains(c, "{") || !(Absolute(c) || programFile(filepath.Join(cwd, c))) {
			continue
		}
		if a := inRepo(c); a != "" && programFile(filepath.Join(root, a)) {
			return a
		}
	}
	for _, dir := range []string{cwd, root} {
		for _, m := range manifests {
			if a := inRepo(filepath.Join(dir, m)); a != "" {
				return a
			}
		}
	}
	return ""
}

// repoRoot is the nearest directory at or above dir holding .git (a
// directory, or the file of a worktree), else dir.
func repoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}
