package hostpath

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOwnProgramAndWantsDir(t *testing.T) {
	cwd := t.TempDir()
	for _, d := range []string{"dist", "pkg", "notes"} {
		if err := os.MkdirAll(filepath.Join(cwd, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"dist/index.js": "", "pkg/package.json": "{}", "data.json": "{}"} {
		if err := os.WriteFile(filepath.Join(cwd, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for in, want := range map[string]string{
		"dist/index.js":            "{cwd}/dist/index.js",
		"./dist/index.js":          "{cwd}/dist/index.js",
		"--entry=dist/index.js":    "--entry={cwd}/dist/index.js",
		"pkg":                      "{cwd}/pkg",
		"notes":                    "", // data, not the server's program
		"data.json":                "",
		"missing.js":               "", // not here
		"../dist/index.js":         "", // above the working directory
		"{cwd}/dist/index.js":      "", // already placed
		"/usr/lib/node/x/index.js": "",
		"--stdio":                  "",
	} {
		got, _, ok := OwnProgram(in, cwd)
		if (want == "") == ok || got != want {
			t.Errorf("OwnProgram(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for p, want := range map[string]bool{
		"notes":                     true,  // a directory here
		filepath.Join(cwd, "notes"): true,  // by its absolute path
		"data.json":                 false, // a file
		"/nowhere/sealmark-notes":   true,  // missing, no extension: a directory
		"/nowhere/memory.json":      false, // missing, an extension: a file
	} {
		if got := WantsDir(p, cwd); got != want {
			t.Errorf("WantsDir(%q) = %v, want %v", p, got, want)
		}
	}
}
