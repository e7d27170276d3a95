package hostpath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSARIFArtifact(t *testing.T) {
	repo := t.TempDir()
	mk := func(rel, body string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	mk("server/dist/index.js", "", 0o644)
	mk("server/package.json", "{}", 0o644)
	mk("go.mod", "module x", 0o644)
	mk("server/sealmark.yaml", "server: {}", 0o644)
	cwd := filepath.Join(repo, "server")
	outside := filepath.Join(t.TempDir(), "sealmark.yaml")
	if err := os.WriteFile(outside, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	mk("server/bin/notes-server", "\x7fELF", 0o755) // a built binary, git-ignored in a real project
	mk("tools/sub/run.py", "print()", 0o644)
	mk("tools/pyproject.toml", "", 0o644)
	for _, tc := range []struct {
		name, cwd, config string
		command           []string
		want              string
	}{
		{"the config file read", cwd, "sealmark.yaml", []string{"node", "{cwd}/dist/index.js"}, "server/sealmark.yaml"},
		{"a config file that does not exist is never named", cwd, "missing.yaml", []string{"node", "{cwd}/dist/index.js"}, "server/package.json"},
		{"a script's manifest, not the script", cwd, "", []string{"node", "{cwd}/dist/index.js", "{sandbox}"}, "server/package.json"},
		{"a relative script's manifest", cwd, "", []string{"node", "dist/index.js"}, "server/package.json"},
		{"a built binary's manifest, not the binary", cwd, "", []string{"./bin/notes-server"}, "server/package.json"},
		{"a built binary by its absolute path", repo, "", []string{filepath.Join(cwd, "bin", "notes-server")}, "server/package.json"},
		{"the manifest nearest the script, above its directory", repo, "", []string{"python3", "tools/sub/run.py"}, "tools/pyproject.toml"},
		{"a config outside the repository", cwd, outside, []string{"python3", "-m", "notes"}, "server/package.json"},
		{"the manifest here", cwd, "", []string{"python3", "-m", "notes"}, "server/package.json"},
		{"the root's manifest", repo, "", []string{"/usr/bin/some-server"}, "go.mod"},
		{"the root's manifest from a directory without one", filepath.Join(repo, "tools", "sub"), "", []string{"/usr/bin/some-server"}, "tools/pyproject.toml"},
	} {
		got, why := SARIFArtifact(tc.cwd, tc.config, tc.command)
		if got != tc.want || why != "" {
			t.Errorf("%s: %q (%q), want %q", tc.name, got, why, tc.want)
		}
	}
}

func TestSARIFArtifactNone(t *testing.T) {
	dir := t.TempDir() // no .git at or above: outside a repository
	bin := filepath.Join(dir, "server")
	if err := os.WriteFile(bin, []byte("\x7fELF"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, why := SARIFArtifact(dir, "", []string{bin})
	if got != "" {
		t.Fatalf("nothing to name: %q, want none (never the binary)", got)
	}
	for _, want := range []string{"no config file was read", "no project manifest (package.json", "not inside a git repository"} {
		if !strings.Contains(why, want) {
			t.Errorf("why %q does not say %q", why, want)
		}
	}
	outside := filepath.Join(t.TempDir(), "sealmark.yaml")
	if err := os.WriteFile(outside, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, why = SARIFArtifact(dir, outside, []string{bin})
	for _, want := range []string{"is outside the repository " + dir, "in the repository root " + dir} {
		if !strings.Contains(why, want) {
			t.Errorf("why %q does not say %q", why, want)
		}
	}
}
