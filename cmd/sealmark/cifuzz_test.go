package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fuzzFunc is the declaration of a fuzz target.
var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)

// TestCIFuzzesEveryTarget checks that .ci/run fuzzes every fuzz target in
// the repository, as the line "./PACKAGE TARGET" of its target list, and
// lists no target that does not exist.
func TestCIFuzzesEveryTarget(t *testing.T) {
	const root = "../.."
	ci, err := os.ReadFile(filepath.Join(root, ".ci/run"))
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(ci), "<<'TARGETS'\n")
	list, _, ok2 := strings.Cut(list, "\nTARGETS\n")
	if !ok || !ok2 {
		t.Fatal(".ci/run has no <<'TARGETS' list of fuzz targets")
	}
	listed := map[string]bool{}
	for line := range strings.SplitSeq(list, "\n") {
		listed[line] = true
	}
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(src), -1) {
			found++
			line := "./" + filepath.ToSlash(rel) + " " + m[1]
			if !listed[line] {
				t.Errorf(".ci/run does not fuzz %s (%s): add the line %q to its TARGETS list", m[1], path, line)
			}
			delete(listed, line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("found no fuzz target in the repository")
	}
	for line := range listed {
		t.Errorf(".ci/run lists %q, which is no fuzz target", line)
	}
}
