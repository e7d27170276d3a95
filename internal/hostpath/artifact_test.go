package hostpath

import (
	"os"
	"path/filepath"
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
	for _, tc := range []struct {
		name, cwd, config string
		command           []string
		want              string
	}{
		{"the config file read", cwd, "sealmark.yaml", []string{"node", "{cwd}/dist/index.js"}, "server/sealmark.yaml"},
		{"a config file that does not exist is never named", cwd, "missing.yaml", []string{"node", "{cwd}/dist/index.js"}, "server/dist/index.js"},
		{"the server's script", cwd, "", []string{"node", "{cwd}/dist/index.js", "{sandbox}"}, "server/dist/index.js"},
		{"a relative script", cwd, "", []string{"node", "dist/index.js"}, "server/dist/index.js"},
		{"a config outside the repository", cwd, outside, []string{"python3", "-m", "notes"}, "server/package.json"},
		{"the manifest here", cwd, "", []string{"python3", "-m", "notes"}, "server/package.json"},
		{"the root's manifest", repo, "", []string{"/usr/bin/some-server"}, "go.mod"},
	} {
		if got := SARIFArtifact(tc.cwd, tc.config, tc.command); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := SARIFArtifact(t.TempDir(), "", []string{"/usr/bin/some-server"}); got != "" {
		t.Errorf("nothing to name: %q, want none", got)
	}
}
