package scan

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadCodexTOML: Codex's config.toml is read by its [mcp_servers]
// tables; a syntax error names its line and column.
func TestLoadCodexTOML(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	require.NoError(t, os.WriteFile(path, []byte(`model = "o4"

[mcp_servers.notes]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "/home/me/notes"]
env = { LOG_LEVEL = "debug" }
startup_timeout_ms = 20000
`), 0o600))
	es, err := Load(path)
	require.NoError(t, err)
	require.Len(t, es, 1)
	assert.Equal(t, "notes", es[0].Name)
	assert.Equal(t, "npx", es[0].Command)
	assert.Equal(t, []string{"-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "/home/me/notes"}, es[0].Args)
	assert.NoError(t, es[0].Invalid)
	assert.Equal(t, "LOG_LEVEL", es[0].Env[0].Name)

	require.NoError(t, os.WriteFile(path, []byte("[mcp_servers.a]\ncommand = \"x\"\nargs = [\"y\"\n"), 0o600))
	_, err = Load(path)
	require.Error(t, err)
	assert.Regexp(t, `config\.toml:\d+:\d+: not TOML`, err.Error())
}

// TestSettingsFilesWithoutServers: Claude Code's ~/.claude.json and Gemini
// CLI's settings.json with no server are no error (they hold other
// settings); another file without servers still is.
func TestSettingsFilesWithoutServers(t *testing.T) {
	for _, name := range []string{"/home/me/.claude.json", "/home/me/.gemini/settings.json"} {
		es, err := Parse(name, []byte(`{"theme": "dark", "projects": {}}`))
		assert.NoError(t, err, name)
		assert.Empty(t, es)
	}
	_, err := Parse("/home/me/mcp.json", []byte(`{"theme": "dark"}`))
	assert.Error(t, err)
	es, err := Parse("/home/me/.claude.json", []byte(`{"mcpServers": {"a": {"command": "x"}}}`))
	require.NoError(t, err)
	assert.Len(t, es, 1)
}
