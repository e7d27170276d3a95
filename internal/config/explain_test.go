package config

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// explainFile holds a secret in every place the report hides one.
const explainFile = `server:
  url: https://deploy:hunter2-url-pass@127.0.0.1:{port}/mcp
  start: node dist/http.js --port {port}
  env:
    LOG_LEVEL: debug
    API_KEY: sk-live-api-key-value
    DB_PASSWORD: "{dsn}"
    MONKEY: banana-not-secret-but-redacted
    SEALMARK_CANARY: mine
  headers:
    Authorization: Bearer header-secret-value
    X-Tenant: acme
  files:
    .npmrc: "//registry.npmjs.org/:_authToken=npm-file-secret"
sandbox:
  keep_env: [HTTP_PROXY]
hints:
  db:
    schema: public
    auth:
      user: app
      pass: hint-nested-secret
    api_token: hint-token-secret
db:
  admin_dsn: postgres://admin:dsn-secret-pass@127.0.0.1:5432/postgres?sslmode=disable
`

var (
	explainEnv   = []string{"SEALMARK_PACKS=core,db", "SEALMARK_TIMEOUT=45s"}
	explainFlags = map[string]string{"header": "X-Api-Key: flag-header-secret", "fail-on": "critical", "layers-off": "landlock,cgroup"}
)

// explainWant is Explain's exact output for explainFile, explainEnv and
// explainFlags.
const explainWant = `server.command = ""   (default)
server.args = []   (default)
server.env.LOG_LEVEL = debug   (sealmark.yaml:5)
server.env.API_KEY = <redacted>   (sealmark.yaml:6)
server.env.DB_PASSWORD = {dsn}   (sealmark.yaml:7)
server.env.MONKEY = <redacted>   (sealmark.yaml:8)
server.env.SEALMARK_CANARY = <canary>   (sealmark.yaml:9)
server.url = https://127.0.0.1:{port}/mcp   (sealmark.yaml:2)
header:Authorization = <redacted>   (sealmark.yaml:11)
header:X-Tenant = acme   (sealmark.yaml:12)
header:X-Api-Key = <redacted>   (flag --header)
server.files..npmrc = <48 bytes>   (sealmark.yaml:14)
server.start = node dist/http.js --port {port}   (sealmark.yaml:3)
sandbox.keep_env = ["HTTP_PROXY"]   (sealmark.yaml:16)
sandbox.scrub_env = true   (default)
sandbox.dir = ""   (default)
sandbox.max_mib = 1024   (default)
sandbox.layers_off = ["landlock", "cgroup"]   (flag --layers-off)
sandbox.services = []   (default)
sandbox.network = closed   (default)
--no-sandbox = false   (default)
--uncontained = false   (default)
--keep-sandbox = false   (default)
--fresh-starts = false   (default)
--jobs = 0   (default)
packs = ["core", "db"]   (env SEALMARK_PACKS)
--probes = []   (default)
--skip-probes = []   (default)
hints.db.api_token = "<redacted>"   (sealmark.yaml:23)
hints.db.auth = {"pass":"<redacted>","user":"<redacted>"}   (sealmark.yaml:20)
hints.db.schema = "public"   (sealmark.yaml:19)
probes = <0 rows>   (default)
fail_on = critical   (flag --fail-on)
allow_inconclusive = false   (default)
baseline = ""   (default)
lock = ""   (default)
timeouts.start = 45s   (env SEALMARK_TIMEOUT)
timeouts.call = 10s   (default)
timeouts.probe = 5m0s   (default)
timeouts.run = 1h0m0s   (default)
report.json = ""   (default)
report.sarif = ""   (default)
report.junit = ""   (default)
db.admin_dsn = postgres://admin:<password>@127.0.0.1:5432/postgres?sslmode=disable   (sealmark.yaml:25)
`

func TestExplain(t *testing.T) {
	r, err := resolve(t, explainFile, explainEnv, explainFlags)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, r.Explain(&out))
	assert.Equal(t, explainWant, out.String())
	for _, secret := range []string{
		"sk-live-api-key-value", "banana", "mine", "header-secret-value", "flag-header-secret",
		"hunter2-url-pass", "dsn-secret-pass", "npm-file-secret", "hint-nested-secret", "hint-token-secret",
	} {
		assert.NotContains(t, out.String(), secret)
	}
}

func TestExplainEmptyMapsAndDefaults(t *testing.T) {
	r, err := Resolve(nil, nil, "", nil, map[string]string{"command": `["npx", "-y", "pkg"]`})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, r.Explain(&out))
	for _, line := range []string{
		`server.command = npx   (command after --)`,
		`server.args = ["-y", "pkg"]   (command after --)`,
		`server.env = {}   (default)`,
		`server.headers = {}   (default)`,
		`server.files = {}   (default)`,
		`hints = {}   (default)`,
		`packs = []   (default)`,
		`fail_on = high   (default)`,
	} {
		assert.Contains(t, out.String(), line+"\n")
	}
	assert.Equal(t, len(settings), bytes.Count(out.Bytes(), []byte("\n")), "one line per key")
}

func TestExplainHintsKeepPlaceholdersAndShowEmptyPacks(t *testing.T) {
	r, err := resolve(t, "server:\n  command: x\nhints:\n  fs: {}\n  db:\n    token_file: \"{sandbox}/t\"\n", nil, nil)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, r.Explain(&out))
	assert.Contains(t, out.String(), "hints.db.token_file = \"{sandbox}/t\"   (sealmark.yaml:6)\nhints.fs = {}   (sealmark.yaml:4)\n")
}

func TestExplainReturnsTheWriteError(t *testing.T) {
	r, err := Resolve(nil, nil, "", nil, nil)
	require.NoError(t, err)
	boom := errors.New("disk full")
	assert.ErrorIs(t, r.Explain(failingWriter{boom}), boom)
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

func TestWithoutPassword(t *testing.T) {
	for _, tc := range []struct{ dsn, want string }{
		{"postgres://admin:pw-secret@127.0.0.1:5432/db", "postgres://admin:<password>@127.0.0.1:5432/db"},
		{"postgres://admin@127.0.0.1/db", "postgres://admin@127.0.0.1/db"},
		{"postgres://127.0.0.1/db", "postgres://127.0.0.1/db"},
		{"postgres://admin:p/w@rd-secret@127.0.0.1/db", "postgres://admin:<password>@127.0.0.1/db"},
		{"sqlserver://sa:pw-secret@127.0.0.1?database=x", "sqlserver://sa:<password>@127.0.0.1?database=x"},
		{"user:pw-secret@tcp(127.0.0.1:3306)/db", "user:<password>@tcp(127.0.0.1:3306)/db"},
		{"host=db user=admin password=pw-secret dbname=x", "host=db user=admin password=<password> dbname=x"},
		{"host=db password='pw secret' user=a", "host=db password=<password> user=a"},
		{"host=db:5432 password=p@pw-secret", "host=db:5432 password=<password>"},
		{"Server=db;User Id=sa;Password=pw-secret;", "Server=db;User Id=sa;Password=<password>;"},
		{"Server=db;PWD={pw;secret};", "Server=db;PWD=<password>;"},
		{"jdbc:postgresql://127.0.0.1/db?user=a&password=pw-secret&ssl=true", "jdbc:postgresql://127.0.0.1/db?user=a&password=<password>&ssl=true"},
		{"", ""},
	} {
		got := withoutPassword(tc.dsn)
		assert.Equal(t, tc.want, got, "withoutPassword(%q)", tc.dsn)
		assert.NotContains(t, got, "secret", "withoutPassword(%q)", tc.dsn)
	}
}

func TestExplainKeepsAValueWithALineBreakOnOneLine(t *testing.T) {
	r, err := resolve(t, "server:\n  command: x\n  env:\n    GREETING: |\n      hello\n      world\n", nil, nil)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, r.Explain(&out))
	assert.Contains(t, out.String(), "\nserver.env.GREETING = \"hello\\nworld\\n\"   (sealmark.yaml:4)\n")
	assert.Equal(t, len(settings), bytes.Count(out.Bytes(), []byte("\n")), "one line per key")
}

// TestExplainMasksPasswordsInAStdioCommand: a URL's password written in a
// stdio server's command or arguments, or in the start command of an HTTP
// server, is masked, as is a token-shaped env value under a plain name;
// the rest of each value is shown as written.
func TestExplainMasksPasswordsInAStdioCommand(t *testing.T) {
	r, err := Resolve(nil, nil, "", nil, map[string]string{"command": `["psql-mcp", "postgres://app:stdio-arg-pw@127.0.0.1:5432/app", "--mirror=https://m:mirror-pw@127.0.0.1/x"]`})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, r.Explain(&out))
	assert.Contains(t, out.String(), `server.args = ["postgres://app:<redacted>@127.0.0.1:5432/app", "--mirror=https://m:<redacted>@127.0.0.1/x"]`)
	assert.NotContains(t, out.String(), "stdio-arg-pw")
	assert.NotContains(t, out.String(), "mirror-pw")

	r, err = resolve(t, "server:\n  url: http://127.0.0.1:{port}/mcp\n  start: node http.js --db mysql://root:start-pw@127.0.0.1/x --port {port}\n  env:\n    UPSTREAM_PAT: ghp_a1b2c3d4e5f6g7h8i9\n", nil, nil)
	require.NoError(t, err)
	out.Reset()
	require.NoError(t, r.Explain(&out))
	assert.Contains(t, out.String(), "server.start = node http.js --db mysql://root:<redacted>@127.0.0.1/x --port {port}   (sealmark.yaml:3)\n")
	assert.Contains(t, out.String(), "server.env.UPSTREAM_PAT = <redacted>   (sealmark.yaml:5)\n")
	assert.NotContains(t, out.String(), "start-pw")
	assert.NotContains(t, out.String(), "ghp_a1b2")
}
