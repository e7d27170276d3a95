package engine

import (
	"os"

	"github.com/sealmark/sealmark/internal/redact"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLogCauses: a failed start's server log, as real servers print it,
// names its cause and remedy; a log that shows none names nothing.
func TestLogCauses(t *testing.T) {
	for _, tc := range []struct{ log, want string }{
		{"Error: This package requires Node.js 22 or later. You are running v20.20.2.\n", "needs Node.js 22 or later"},
		{"npm warn EBADENGINE Unsupported engine {\nerror: cclsp requires node >=22.0.0\n", "needs Node.js 22 or later"},
		{"Error: Cannot find module '/c/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nRequire stack:\n", "native module better_sqlite3.node"},
		{"Error: Could not locate the bindings file. Tried:\n → /c/node_modules/sqlite3/build/sqlite3.node\n", "install scripts off"},
		{"Please visit this URL to authorize this app: https://accounts.google.com/o/oauth2/v2/auth?access_type=offline&scope=x\n", "interactive sign-in"},
		{"Open https://github.com/login/device and enter the code ABCD-1234\n", "interactive sign-in"},
		{"Error: Request failed with status code 401\n", "API key was rejected"},
		{"{\"error\":\"invalid_api_key\",\"message\":\"Invalid API key\"}\n", "API key was rejected"},
		{"Error: connect ECONNREFUSED 127.0.0.1:5999\n    at TCPConnectWrap.afterConnect\n", "a service at 127.0.0.1:5999 that is not running"},
		{"MongoServerSelectionError: connect ECONNREFUSED ::1:27999\n", "service at ::1:27999"},
		{"[ioredis] Unhandled error event: Error: connect ECONNREFUSED 10.0.0.5:6379\n", "off this machine"},
		{"Failed to start server: Error: Failed to load OpenAPI spec from file: ENOENT: no such file or directory, open '{sandbox}/openapi.json'\n", "could not find {sandbox}/openapi.json"},
		{"Config file specified in CCLSP_CONFIG_PATH does not exist: {sandbox}/cclsp.json\n", "could not find a file it was given"},
		{"Error: OAuth keys file not found. Please place gcp-oauth.keys.json in current directory or {sandbox_home}/.gmail-mcp\n", "(its log: \"Error: OAuth keys file not found. Please place gcp-oauth.keys.json in current directory or {sandbox_home}/.gmail-mcp\")"},
		{"obsidian-mcp: error [UNSUPPORTED_NODE_VERSION]\n\nProblem: Obsidian MCP v2 requires Node.js 22 or newer.\nDetected: Node.js 20.20.2\n", "needs Node.js 22 or later"},
		{"Error [ERR_UNKNOWN_BUILTIN_MODULE]: No such built-in module: node:sqlite\n\nNode.js v20.20.2\n", "node:sqlite is not built into"},
		{"Attempting to connect to Redis at redis://127.0.0.1:6999...\nRedis Client Error: connect ENETUNREACH 127.0.0.1:6999 - Local (0.0.0.0:0)\n", "service at 127.0.0.1:6999, which is not declared"},
		{"Fatal error in main(): Cannot find module '/c/node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp' imported from /c/dist/index.js\n", "imports a module that is not there"},
		{"sealmark-fixture ready\n", ""},
		{"server listening on stdio; 401 tools loaded\n", ""},
	} {
		got := logCauseOf(tc.log, "")
		if tc.want == "" {
			assert.Empty(t, got, tc.log)
			continue
		}
		assert.Contains(t, got, tc.want, tc.log)
	}
}

// TestLogCauseFromEngines: a server that crashed on an older Node.js than
// its package's engines field asks for is named so, from the field and the
// version Node.js printed with the crash; the same crash on a Node.js the
// field allows is not.
func TestLogCauseFromEngines(t *testing.T) {
	pkg := filepath.Join(t.TempDir(), "node_modules", "srv")
	require.NoError(t, os.MkdirAll(filepath.Join(pkg, "dist"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"srv","engines":{"node":">=22"}}`), 0o644))
	bin := filepath.Join(pkg, "dist", "index.js")
	require.NoError(t, os.WriteFile(bin, []byte("#!/usr/bin/env node\n"), 0o755))
	crash := "file:///x/index.js:3\nSyntaxError: Invalid regular expression flags\n\nNode.js v20.20.2\n"
	assert.Contains(t, logCauseOf(crash, bin), "needs Node.js 22 or later (its package's engines field) and ran on Node.js 20")
	assert.Empty(t, logCauseOf("SyntaxError: x\n\nNode.js v22.3.0\n", bin))
	assert.Empty(t, logCauseOf(crash, "node"), "no package to read")
}

// TestCausedErrorLeads: the cause is the first line of the start failure,
// what containment saw follows.
func TestCausedErrorLeads(t *testing.T) {
	err := &causedError{cause: "the server needs Node.js 22 or later", err: assert.AnError}
	assert.Equal(t, "the server needs Node.js 22 or later\n"+assert.AnError.Error(), err.Error())
	assert.ErrorIs(t, err, assert.AnError)
}

// TestRefusedCause: a server that said nothing and was refused an
// undeclared loopback service is named as needing it; a refused write is
// no such cause.
func TestRefusedCause(t *testing.T) {
	got := refusedCause([]string{refusedDest(map[string]string{"op": "connect", "family": "inet", "addr": "127.0.0.1", "port": "3999"})})
	assert.Contains(t, got, "needs a service at 127.0.0.1:3999, which is not declared")
	assert.Empty(t, refusedCause([]string{"open /etc/x (O_WRONLY): refused (outside the sandbox)"}))
}

// TestCauseIsMasked: a cause that quotes the log masks the secrets the run
// knows.
func TestCauseIsMasked(t *testing.T) {
	e := &Engine{redactor: redact.New()}
	e.redactor.Secret("sk-live-4f9a8b7c6d5e", redact.MaskRedacted)
	got := e.causeOf("Error: ENOENT: no such file or directory, open '/keys/sk-live-4f9a8b7c6d5e'\n")
	assert.Contains(t, got, "could not find /keys/")
	assert.Contains(t, logCauseOf("Error: ENOENT: no such file or directory, open '/keys/sk-live-4f9a8b7c6d5e'\n", ""), "sk-live-4f9a8b7c6d5e", "unmasked, the cause quotes it")
	assert.NotContains(t, got, "sk-live-4f9a8b7c6d5e")
}
