package scan

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/layout"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

func TestBareWordsAreNeverRewritten(t *testing.T) {
	cwd := t.TempDir()
	for _, name := range []string{"start", "server", "config.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(cwd, name), []byte("x"), 0o644))
	}
	e := Entry{Name: "b", Type: "stdio", Command: "node", Args: []string{"server", "start", "--name=config.json"},
		Env: []config.KV{{Name: "MODE", Value: "start"}}}
	p, err := makePlan(context.Background(), e, &Options{Cwd: cwd})
	require.NoError(t, err)
	assert.Equal(t, []string{"server", "start", "--name=config.json"}, p.file.Args, "a bare word is a word, whatever lies in the working directory")
	assert.Equal(t, "start", p.file.Env[0].Value)
	for _, n := range p.notes {
		assert.NotContains(t, n, "replaced", "nothing was rewritten")
	}
	assert.Empty(t, p.staged)
}

func TestPathFlagsAndVariablesAreStaged(t *testing.T) {
	cwd := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(cwd, "conf"), 0o700))
	for name, body := range map[string]string{"app.json": `{"a":1}`, "conf/spec.yaml": "openapi: 3.1.0", ".env": "KEY=v", "big.json": ""} {
		require.NoError(t, os.WriteFile(filepath.Join(cwd, name), []byte(body), 0o644))
	}
	require.NoError(t, os.Truncate(filepath.Join(cwd, "big.json"), MaxStagedBytes+1))
	e := Entry{Name: "s", Type: "stdio", Command: "node", Args: []string{"--config", "app.json", "--env-file", "./.env", "--spec=./big.json"},
		Env: []config.KV{{Name: "OPENAPI_SPEC_PATH", Value: "conf/spec.yaml"}, {Name: "LABEL", Value: "app.json"}}}
	p, err := makePlan(context.Background(), e, &Options{Cwd: cwd})
	require.NoError(t, err)
	assert.Equal(t, []string{"--config", "{sandbox}/app.json", "--env-file", "{sandbox}/.env", "--spec={sandbox}/big.json"}, p.file.Args)
	assert.Equal(t, "{sandbox}/spec.yaml", p.file.Env[0].Value, "a path variable's value is a path")
	assert.Equal(t, "app.json", p.file.Env[1].Value, "any other variable's bare word is not")
	require.Len(t, p.staged, 2)
	assert.Equal(t, "{sandbox}/app.json", p.staged[0].Path)
	assert.Equal(t, `{"a":1}`, string(p.staged[0].Data))
	assert.Equal(t, "{sandbox}/spec.yaml", p.staged[1].Path)
	notes := strings.Join(p.notes, "\n")
	assert.Contains(t, notes, "scan: staged: app.json copied read-only to {sandbox}/app.json (7 bytes)")
	assert.Contains(t, notes, "scan: withheld: ./.env looks like a credentials file")
	assert.Contains(t, notes, "scan: withheld: ./big.json is 10485761 bytes, over the 10485760-byte bound")
}

// scanFixture scans the fixture server with args and env, core pack only.
func scanFixture(t *testing.T, cwd string, args []string, env []config.KV) *report.Report {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	e := Entry{Name: "cfg", Source: "test.json", Key: "mcpServers", Type: "stdio", Command: self, Args: append([]string{fixture.Verb}, args...), Env: env}
	results := Run(context.Background(), []Entry{e}, &Options{Cwd: cwd, Env: os.Environ(), Fetcher: &Fetcher{Dir: t.TempDir()},
		Flags: map[string]string{"packs": "core", "sandbox-dir": t.TempDir(), "call-timeout": "5s"}})
	require.Len(t, results, 1)
	return results[0].Report
}

func TestAStagedFileIsACopyReadOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run against a staged config file")
	}
	cwd := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(cwd, "app.json"), []byte(`{"a":1}`), 0o644))
	self, err := os.Executable()
	require.NoError(t, err)
	e := Entry{Name: "cfg", Source: "test.json", Key: "mcpServers", Type: "stdio", Command: self, Args: []string{fixture.Verb, "--config", "./app.json"}}
	results := Run(context.Background(), []Entry{e}, &Options{Cwd: cwd, Env: os.Environ(), Fetcher: &Fetcher{Dir: t.TempDir()},
		Flags: map[string]string{"packs": "core", "sandbox-dir": t.TempDir(), "call-timeout": "5s", "keep-sandbox": "true"}})
	rep := results[0].Report
	require.Empty(t, rep.HarnessError)
	require.True(t, rep.Sandbox.Kept)
	staged := filepath.Join(rep.Sandbox.Path, layout.Root, "app.json") // {sandbox} is the root under the kept top
	st, err := os.Stat(staged)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o400), st.Mode().Perm(), "read-only")
	data, err := os.ReadFile(staged)
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(data), "byte for byte: the braces are no placeholders")
}

func TestAConfigFileNamedInArgsOrEnvReachesTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run per way a config file is named")
	}
	cwd := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(cwd, "app.json"), []byte(`{"a":1}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(cwd, "credentials.json"), []byte(`{"k":"v"}`), 0o644))

	rep := scanFixture(t, cwd, []string{"--config", "app.json"}, nil)
	assert.Empty(t, rep.HarnessError, "the staged config file is there when the server starts")
	assert.Contains(t, rep.Warnings, "scan: staged: app.json copied read-only to {sandbox}/app.json (7 bytes)")

	rep = scanFixture(t, cwd, nil, []config.KV{{Name: fixture.ConfigEnv, Value: filepath.Join(cwd, "app.json")}})
	assert.Empty(t, rep.HarnessError, "by a path variable too")

	rep = scanFixture(t, cwd, []string{"--config", "credentials.json"}, nil)
	assert.NotEmpty(t, rep.HarnessError, "a withheld credentials file does not reach the server")
	assert.Contains(t, strings.Join(rep.Warnings, "\n"), "scan: withheld: credentials.json looks like a credentials file")
	first, _, _ := strings.Cut(rep.HarnessError, "\n")
	assert.Equal(t, "scan withheld a file the server was given, which it then could not find: credentials.json looks like a credentials file and was not copied to {sandbox}/credentials.json; scan --as-configured passes the host path as configured", first,
		"the start failure names scan's withholding first, not the user's configuration")
}

func TestEveryRewriteAndStagingInEveryFormat(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every rewrite and staging in every config format")
	}
	cwd := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(cwd, "app.json"), []byte(`{"a":1}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(cwd, "id_ed25519"), []byte("key"), 0o600))
	const secret = "sk-live-a1b2c3d4e5f6g7h8i9j0"
	rep := scanFixture(t, cwd, []string{"--config", "app.json"}, []config.KV{{Name: "API_KEY", Value: secret}, {Name: "SSH_KEY_FILE", Value: "id_ed25519"}})
	require.Empty(t, rep.HarnessError)
	want := []string{
		"the path app.json on this machine was replaced with {sandbox}/app.json",
		"staged: app.json copied read-only to {sandbox}/app.json",
		"the path id_ed25519 on this machine was replaced with {sandbox}/id_ed25519",
		"withheld: id_ed25519 looks like a credentials file",
	}
	formats := map[string]func(*bytes.Buffer) error{
		"json":  func(b *bytes.Buffer) error { return report.WriteJSON(b, rep) },
		"text":  func(b *bytes.Buffer) error { return report.WriteText(b, rep) },
		"sarif": func(b *bytes.Buffer) error { return report.WriteSARIF(b, rep, report.SARIFOptions{}) },
		"junit": func(b *bytes.Buffer) error { return report.WriteJUnit(b, rep) },
		"html": func(b *bytes.Buffer) error {
			return report.WriteHTML(b, []report.NamedReport{{Name: "cfg", Report: rep}}, packs.High)
		},
	}
	for name, write := range formats {
		var b bytes.Buffer
		require.NoError(t, write(&b), name)
		out := b.String()
		for _, w := range want {
			assert.Contains(t, out, w, "%s lists every rewrite and staging", name)
		}
		assert.NotContains(t, out, secret, "%s masks the secret", name)
	}
}
