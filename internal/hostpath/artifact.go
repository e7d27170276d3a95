package hostpath

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// manifests are the files that describe a project, in the order
// SARIFArtifact prefers them within one directory.
var manifests = []string{"package.json", "pyproject.toml", "go.mod", "Cargo.toml", "setup.py", "deno.json", "pom.xml", "build.gradle"}

// SARIFArtifact is the file SARIF results about a server point at, relative
// to the repository root (the nearest directory at or above cwd holding
// .git, else cwd) with forward slashes, and, when there is none, why
// (a sentence for a warning). Code scanning refuses a whole upload when a
// result names no file, and shows an alert at a file that exists in the
// repository, so the file is, in order:
//
//   - the config file the run read (config, as given: sealmark.yaml, or
//     the scanned client configuration);
//   - the project manifest (package.json, pyproject.toml, go.mod, ...)
//     nearest to the server's own program or script among command
//     (placeholders expanded: {cwd} is cwd), from its directory up to the
//     repository root;
//   - the project manifest nearest to cwd, up to the repository root.
//
// Never the program itself: a built binary or a dist/ script is a build
// output, usually ignored by git, so code scanning could not show it.
// Only a regular file inside the repository is named.
func SARIFArtifact(cwd, config string, command []string) (uri, why string) {
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
		if rel, ok := within(root, p); ok {
			return rel
		}
		return ""
	}
	if a := inRepo(config); a != "" {
		return a, ""
	}
	var starts []string
	for _, c := range command {
		c = strings.ReplaceAll(c, "{cwd}", cwd)
		if _, v, ok := strings.Cut(c, "="); ok && strings.HasPrefix(c, "-") {
			c = v
		}
		if strings.Contains(c, "{") || !(Absolute(c) || programFile(filepath.Join(cwd, c))) {
			continue
		}
		p := expandHome(c)
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if _, ok := within(root, p); ok && programFile(p) {
			starts = append(starts, filepath.Dir(p))
		}
	}
	starts = append(starts, cwd)
	for _, dir := range starts {
		for d := dir; ; d = filepath.Dir(d) {
			for _, m := range manifests {
				if a := inRepo(filepath.Join(d, m)); a != "" {
					return a, ""
				}
			}
			if _, ok := within(root, d); !ok || d == root || filepath.Dir(d) == d {
				break
			}
		}
	}
	var reasons []string
	switch {
	case config == "":
		reasons = append(reasons, "no config file was read")
	case inRepo(config) == "" && fileExists(config, cwd):
		reasons = append(reasons, fmt.Sprintf("the config file %s is outside the repository %s", config, root))
	default:
		reasons = append(reasons, fmt.Sprintf("the config file %s is not a file", config))
	}
	where := fmt.Sprintf("in %s or above it up to the repository root %s", cwd, root)
	if root == cwd {
		if _, err := os.Lstat(filepath.Join(cwd, ".git")); err != nil {
			where = fmt.Sprintf("in %s, which is not inside a git repository", cwd)
		} else {
			where = "in the repository root " + root
		}
	}
	reasons = append(reasons, fmt.Sprintf("no project manifest (%s) %s", strings.Join(manifests[:4], ", ")+", ...", where))
	return "", strings.Join(reasons, ", and ")
}

// within is p relative to root with forward slashes, and whether p is
// inside root.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// fileExists reports whether p (relative to cwd) is a regular file.
func fileExists(p, cwd string) bool {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
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
