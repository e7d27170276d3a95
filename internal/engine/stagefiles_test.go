package engine

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/sandbox"
)

// TestRestageFilesFollowsStartValues: a staged file naming a placeholder
// a start gives its own value ({dsn} of the db pack's writer) is written
// again with it before that start, and with the run's value again before
// the next start; a file naming none of them is left as it is.
func TestRestageFilesFollowsStartValues(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "root")
	e := &Engine{
		sb:   &sandbox.Sandbox{Top: top, Root: root},
		cfg:  Config{Catalog: catalogue.All, Files: []File{{Path: "conf/pg.toml", Content: "dsn = {dsn}\n"}, {Path: "other.txt", Content: "{sandbox}"}}},
		vars: map[string]string{"dsn": "reader-dsn", "sandbox": root},
	}
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if err := e.stageFiles(); err != nil {
		t.Fatal(err)
	}
	if got := read("conf/pg.toml"); got != "dsn = reader-dsn\n" {
		t.Fatalf("staged %q, want the run's {dsn}", got)
	}
	if err := os.WriteFile(filepath.Join(root, "other.txt"), []byte("changed by the server"), 0o600); err != nil {
		t.Fatal(err)
	}
	writer := maps.Clone(e.vars)
	writer["dsn"], writer["db_role"] = "writer-dsn", "writer"
	for _, step := range []struct {
		vars map[string]string
		want string
	}{
		{writer, "dsn = writer-dsn\n"},
		{writer, "dsn = writer-dsn\n"},
		{e.vars, "dsn = reader-dsn\n"},
	} {
		if err := e.restageFiles(step.vars); err != nil {
			t.Fatal(err)
		}
		if got := read("conf/pg.toml"); got != step.want {
			t.Errorf("before a start with {dsn}=%s: %q, want %q", step.vars["dsn"], got, step.want)
		}
	}
	if got := read("other.txt"); got != "changed by the server" {
		t.Errorf("other.txt, which names no start's value, was written again: %q", got)
	}
}
