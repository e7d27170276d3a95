package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeInit is the README's init example: the server command after --.
var readmeInit = regexp.MustCompile("(?m)^sealmark init --yes -- (.+?) +#")

// TestReadmeInitExample follows the README's init example literally in a
// fresh project directory (its dist/index.js a small node notes server
// that needs its notes directory to exist): the config init writes runs
// the server. The relative script becomes {cwd}/dist/index.js, and the
// notes directory becomes {sandbox}, the sandbox root, which exists.
func TestReadmeInitExample(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: the README's example server cannot run")
	}
	raw, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	m := readmeInit.FindSubmatch(raw)
	require.NotNil(t, m, "the README has no `sealmark init --yes -- ...` example")
	line := string(m[1])
	require.Equal(t, "node dist/index.js ~/notes", line, "the example this test follows changed: follow the new one")

	script, err := os.ReadFile("testdata/readme-notes.js")
	require.NoError(t, err)
	project, home := t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, "dist"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, "dist", "index.js"), script, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(home, "notes"), 0o755))
	t.Chdir(project)
	args := strings.Fields(strings.ReplaceAll(line, "~/", home+"/")) // as the shell expands it

	code, out, errOut := sealmark(t, append([]string{"init", "--yes", "--"}, args...)...)
	require.Equal(t, 0, code, "%s%s", out, errOut)
	assert.Contains(t, out, "server.args[0]: dist/index.js → {cwd}/dist/index.js")
	assert.Contains(t, out, "server.args[1]: "+home+"/notes → {sandbox}\n", "a directory is the server's root: the sandbox root")

	code, out, errOut = sealmark(t, "run", "--sandbox-dir", t.TempDir(), "--packs", "core", "--timeout", "20s")
	assert.Contains(t, []int{0, 1}, code, "the config init wrote does not run the server:\n%s%s", out, errOut)
	assert.NotContains(t, out, "error: ", "the server did not start:\n%s", out)
	assert.Contains(t, out, "(server readme-notes 1.0.0)", "the run reached the server:\n%s", out)

	// Run as written, without init's changes, the same server cannot start.
	require.NoError(t, os.WriteFile("sealmark.yaml", []byte("server:\n  command: node\n  args: [dist/index.js, "+home+"/notes-elsewhere]\n"), 0o644))
	code, out, _ = sealmark(t, "run", "--sandbox-dir", t.TempDir(), "--packs", "core", "--timeout", "20s")
	assert.Equal(t, 3, code, "a relative script in the sandbox root should not start:\n%s", out)
}
