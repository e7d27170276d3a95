package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"go.yaml.in/yaml/v3"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/hostpath"
)

// initIn runs sealmark init writing into a fresh directory and returns the
// file's path with the outputs.
func initIn(t *testing.T, stdin string, args ...string) (path string, code int, stdout, stderr string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "sealmark.yaml")
	var out, errb bytes.Buffer
	code = run(append([]string{"init", "--out", path}, args...), strings.NewReader(stdin), &out, &errb)
	return path, code, out.String(), errb.String()
}

// loadWritten parses the written file with the config package and checks
// it against docs/sealmark.schema.json.
func loadWritten(t *testing.T, path string) (*config.Settings, string) {
	t.Helper()
	s, _, err := config.Load(path)
	require.NoError(t, err)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	validateSchema(t, raw)
	return s, string(raw)
}

// schemaFile is absolute, so tests that change directory still find it.
var schemaFile, _ = filepath.Abs("../../docs/sealmark.schema.json")

func validateSchema(t *testing.T, raw []byte) {
	t.Helper()
	f, err := os.Open(schemaFile)
	require.NoError(t, err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("sealmark.schema.json", doc))
	sch, err := c.Compile("sealmark.schema.json")
	require.NoError(t, err)
	var v any
	require.NoError(t, yaml.Unmarshal(raw, &v))
	b, err := json.Marshal(v)
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	assert.NoError(t, sch.Validate(inst))
}

// withTerminal makes init believe stdin is a terminal.
func withTerminal(t *testing.T) {
	saved := interactive
	interactive = func(io.Reader) bool { return true }
	t.Cleanup(func() { interactive = saved })
}

func TestInitWritesAParseableFile(t *testing.T) {
	argv := serverArgs(t, "")
	path, code, out, errOut := initIn(t, "", append([]string{"--env", "LOG_LEVEL=debug", "--"}, argv...)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "wrote "+path)
	s, raw := loadWritten(t, path)
	assert.Equal(t, argv[0], s.Command)
	assert.Equal(t, argv[1:], s.Args)
	assert.Equal(t, []config.KV{{Name: "LOG_LEVEL", Value: "debug"}}, s.Env)
	for _, commented := range []string{"keep_env:", "# packs:", "# fail_on:", "# report:", "#   sarif:", "# files:", "#   layers_off:"} {
		assert.Contains(t, raw, commented)
	}
	assert.NotRegexp(t, `(?m)^\s*-*(active|yes)\s*:`, raw, "never an active or yes key")

	// The file is what sealmark run and doctor read.
	code, doc, _ := sealmark(t, "doctor", "--config", path)
	assert.Equal(t, 0, code, doc)
}

func TestInitArgumentsRoundTrip(t *testing.T) {
	odd := []string{"", "yes", "no", "8080", "a: b", "#hash", `say "hi"`, "line\nbreak", "{port}", "- x", "[1]", "tab\there", "ünïcode", `back\slash`}
	path, code, _, errOut := initIn(t, "", append([]string{"--env", "EMPTY=", "--env", "N=off", "--env", "N=on", "--", "srv"}, odd...)...)
	require.Equal(t, 0, code, errOut)
	s, _ := loadWritten(t, path)
	assert.Equal(t, "srv", s.Command)
	assert.Equal(t, odd, s.Args)
	assert.Equal(t, []config.KV{{Name: "EMPTY", Value: ""}, {Name: "N", Value: "on"}}, s.Env, "a later --env replaces an earlier one")
}

func TestInitYesReplacesDetectedPaths(t *testing.T) {
	path, code, out, errOut := initIn(t, "", "--yes", "--env", "MEMORY_FILE_PATH=/data/memory.json", "--env", "DIR={sandbox}/kept",
		"--", "srv", "--root=/srv/files", "/data/x", "/other/x", "/data/x", "~/notes", "/", "plain")
	require.Equal(t, 0, code, errOut)
	s, raw := loadWritten(t, path)
	assert.Equal(t, []string{"--root={sandbox}/files", "{sandbox}/x", "{sandbox}/x-2", "{sandbox}/x", "{sandbox}/notes", "{sandbox}", "plain"}, s.Args)
	assert.Equal(t, []config.KV{{Name: "MEMORY_FILE_PATH", Value: "{sandbox}/memory.json"}, {Name: "DIR", Value: "{sandbox}/kept"}}, s.Env)
	assert.NotContains(t, raw, "# sealmark init:", "replaced paths need no note")
	assert.Contains(t, out, "server.args[1]: /data/x → {sandbox}/x")
	assert.Contains(t, out, "server.env MEMORY_FILE_PATH: /data/memory.json → {sandbox}/memory.json")
	assert.Empty(t, errOut, "--yes asks nothing")
}

func TestInitWithoutTerminalKeepsPathsWithANote(t *testing.T) {
	path, code, _, errOut := initIn(t, "y\ny\n", "--env", "MEMORY_FILE_PATH=/data/memory.json", "--", "srv", "/data/x")
	require.Equal(t, 0, code, errOut)
	s, raw := loadWritten(t, path)
	assert.Equal(t, []string{"/data/x"}, s.Args, "no terminal and no --yes: nothing replaced")
	assert.Equal(t, "/data/memory.json", s.Env[0].Value)
	assert.Contains(t, raw, "    # sealmark init: /data/x points at a real path on this machine; consider {sandbox}/x\n    - \"/data/x\"\n")
	assert.Contains(t, raw, "    # sealmark init: /data/memory.json points at a real path on this machine; consider {sandbox}/memory.json\n    MEMORY_FILE_PATH: \"/data/memory.json\"\n")
	assert.NotContains(t, errOut, "[y/N]", "no questions without a terminal")
}

func TestInitAsksOnATerminal(t *testing.T) {
	withTerminal(t)
	path, code, _, errOut := initIn(t, "y\nno\n", "--", "srv", "/data/a", "/data/b", "/data/c")
	require.Equal(t, 0, code, errOut)
	s, raw := loadWritten(t, path)
	assert.Equal(t, []string{"{sandbox}/a", "/data/b", "/data/c"}, s.Args, "y replaces; no, and no answer at all (EOF), keep")
	assert.Equal(t, 3, strings.Count(errOut, "[y/N]"))
	assert.Contains(t, errOut, "server.args[0]: /data/a points at a real path on this machine; valid calls may read or write it\n  Use {sandbox}/a instead? [y/N] ")
	assert.Contains(t, raw, "consider {sandbox}/b")
	assert.Contains(t, raw, "consider {sandbox}/c")

	withTerminal(t)
	path, code, _, errOut = initIn(t, "", "--yes", "--", "srv", "/data/a")
	require.Equal(t, 0, code)
	s, _ = loadWritten(t, path)
	assert.Equal(t, []string{"{sandbox}/a"}, s.Args)
	assert.NotContains(t, errOut, "[y/N]", "--yes asks nothing, even on a terminal")
}

func TestInitRelativePaths(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.Mkdir("data", 0o755))
	require.NoError(t, os.Mkdir("srv", 0o755))
	require.NoError(t, os.WriteFile(filepath.Join("srv", "package.json"), []byte("{}"), 0o644))
	require.NoError(t, os.WriteFile("server.js", nil, 0o644))
	require.NoError(t, os.WriteFile("server-bin", nil, 0o755))
	require.NoError(t, os.WriteFile("notes.txt", nil, 0o644))
	require.NoError(t, os.WriteFile("start", nil, 0o644))
	args := []string{"--", "node", "server.js", "srv", "./server-bin", "./data", "--file=notes.txt", "missing", "--flag", "start", "data"}

	code, _, errOut := sealmark(t, append([]string{"init", "--out", "kept.yaml"}, args...)...)
	require.Equal(t, 0, code, errOut)
	_, raw := loadWritten(t, "kept.yaml")
	assert.Equal(t, 2, strings.Count(raw, "# sealmark init:"), "data and notes.txt only:\n%s", raw)
	assert.Contains(t, raw, "# sealmark init: ./data is relative: the server runs in the sandbox root, so it means {sandbox}/data there; write {cwd}/data for the real one")

	code, out, errOut := sealmark(t, append([]string{"init", "--yes", "--out", "yes.yaml"}, args...)...)
	require.Equal(t, 0, code, errOut)
	s, _ := loadWritten(t, "yes.yaml")
	assert.Equal(t, []string{"{cwd}/server.js", "{cwd}/srv", "{cwd}/server-bin", "{sandbox}", "--file={sandbox}/notes.txt", "missing", "--flag", "start", "data"}, s.Args,
		"the program file, the project directory and the executable are the server's own, found at {cwd} (in the sandbox root they do not exist); "+
			"the data directory is the server's root, the sandbox root; notes.txt is a path flag's value; bare words (start, data) stay words although files of those names exist")
	assert.Empty(t, s.Files, "the sandbox root exists; notes.txt's offer lies in {sandbox}")
	assert.Contains(t, out, "server.args[4]: notes.txt → {sandbox}/notes.txt (not staged: its content stays out of yes.yaml; add it under server.files, or sealmark scan copies it read-only)")
}

func TestInitSecretEnvNeverWritten(t *testing.T) {
	const secret = "sk-live-init-secret-0123456789"
	path, code, out, errOut := initIn(t, "", "--yes", "--env", "API_KEY="+secret, "--env", "AUTH_FILE={sandbox}/auth.json", "--", "srv")
	require.Equal(t, 0, code, errOut)
	s, raw := loadWritten(t, path)
	assert.NotContains(t, raw+out+errOut, secret)
	assert.Equal(t, []string{"API_KEY"}, s.KeepEnv)
	assert.Equal(t, []config.KV{{Name: "AUTH_FILE", Value: "{sandbox}/auth.json"}}, s.Env, "a value holding a placeholder is no secret")
	assert.Contains(t, errOut, "API_KEY looks like a secret: its value is not written")
}

func TestInitRefusesToOverwrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sealmark.yaml")
	require.NoError(t, os.WriteFile(path, []byte("# mine\n"), 0o644))

	code, _, errOut := sealmark(t, "init", "--out", path, "--", "srv")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, path+" exists; pass --force to overwrite it")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "# mine\n", string(raw))

	code, _, errOut = sealmark(t, "init", "--force", "--out", path, "--", "srv")
	require.Equal(t, 0, code, errOut)
	s, _ := loadWritten(t, path)
	assert.Equal(t, "srv", s.Command)
}

func TestInitUsageErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.yaml")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"init", "--out", out}, "no server command: sealmark init [flags] -- COMMAND [ARGS...]"},
		{[]string{"init", "--out", out, "--", ""}, "no server command"},
		{[]string{"init", "--out", "", "--", "srv"}, "--out: want a file name"},
		{[]string{"init", "--out", out, "--env", "sk-no-equals-secret", "--", "srv"}, "--env: want NAME=VALUE"},
		{[]string{"init", "--out", out, "--env", "=value", "--", "srv"}, "--env: want NAME=VALUE"},
		{[]string{"init", "--bogus"}, "flag provided but not defined: -bogus"},
	} {
		code, _, errOut := sealmark(t, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, errOut, tc.want, "%v", tc.args)
		assert.NotContains(t, errOut, "sk-no-equals-secret", "an --env entry is never quoted")
	}
	_, err := os.Stat(out)
	assert.ErrorIs(t, err, os.ErrNotExist, "no usage error writes a file")

	code, _, errOut := sealmark(t, "init", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, errOut, "usage: sealmark init")

	code, _, errOut = sealmark(t, "init", "--out", filepath.Join(dir, "no", "such", "dir.yaml"), "--", "srv")
	assert.Equal(t, 3, code)
	assert.Contains(t, errOut, "no such file or directory")
}

func TestSandboxName(t *testing.T) {
	taken := map[string]bool{}
	for _, tc := range []struct{ path, want string }{
		{"/data/x.json", "{sandbox}/x.json"},
		{"/other/x.json", "{sandbox}/x-2.json"},
		{"/third/x.json", "{sandbox}/x-3.json"},
		{"/data/dir/", "{sandbox}/dir"},
		{`C:\Users\me\notes`, "{sandbox}/notes"},
		{"/", "{sandbox}"},
		{".", "{sandbox}"},
		{"~", "{sandbox}"},
		{"C:/", "{sandbox}"},
		{"/weird/{x}", "{sandbox}/data"},
	} {
		assert.Equal(t, tc.want, hostpath.SandboxName(tc.path, taken), tc.path)
	}
}

// TestInitURLPasswordsNeverWritten: no password reaches the written file
// or init's output: a PostgreSQL URL becomes {dsn}, another URL's password
// <redacted> with a warning, a token-shaped --env value under a plain name
// goes to keep_env; the header comment's command line keeps none either.
func TestInitURLPasswordsNeverWritten(t *testing.T) {
	const pgPass, mirrorPass, envPass, token = "pg-pass-hunter2", "mirror-pass-77", "env-url-pass-5", "ghp_a1b2c3d4e5f6g7h8i9j0"
	path, code, out, errOut := initIn(t, "",
		"--env", "UPSTREAM_PAT="+token, "--env", "CACHE_URL=redis://cache:"+envPass+"@127.0.0.1:6379/0",
		"--", "mcp-postgres", "postgres://app:"+pgPass+"@127.0.0.1:5432/app", "--mirror=https://me:"+mirrorPass+"@127.0.0.1/m")
	require.Equal(t, 0, code, errOut)
	s, raw := loadWritten(t, path)
	for _, secret := range []string{pgPass, mirrorPass, envPass, token, "pg-p", "-pass-77", "env-u", "ghp_a1"} {
		assert.NotContains(t, raw+out+errOut, secret)
	}
	assert.Equal(t, []string{"{dsn}", "--mirror=https://me:<redacted>@127.0.0.1/m"}, s.Args)
	assert.Equal(t, []config.KV{{Name: "CACHE_URL", Value: "redis://cache:<redacted>@127.0.0.1:6379/0"}}, s.Env)
	assert.Equal(t, []string{"UPSTREAM_PAT"}, s.KeepEnv)
	assert.Contains(t, errOut, "server.args[0]: a PostgreSQL URL with a password became {dsn}")
	assert.Contains(t, errOut, "warning: server.args[1]: a URL's password became <redacted>")
	assert.Contains(t, errOut, "warning: server.env CACHE_URL: a URL's password became <redacted>")
}
