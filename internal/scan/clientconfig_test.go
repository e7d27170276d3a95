package scan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/config"
)

func TestParseEachClientsForm(t *testing.T) {
	for _, tc := range []struct {
		name, data, key string
		want            Entry
	}{
		{"claude desktop", `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"], "env": {"DEBUG": "1"}}}}`,
			"mcpServers", Entry{Name: "fs", Type: "stdio", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"}, Env: []config.KV{{Name: "DEBUG", Value: "1"}}}},
		{"vs code jsonc", `{
			// the workspace's servers
			"inputs": [{"type": "promptString", "id": "gh", "password": true}],
			"servers": {
				"github": {"type": "http", "url": "http://127.0.0.1:3000/mcp", "headers": {"Authorization": "Bearer ${input:gh}"},}, /* trailing comma */
			},
		}`, "servers", Entry{Name: "github", Type: "http", URL: "http://127.0.0.1:3000/mcp", Headers: []config.KV{{Name: "Authorization", Value: "Bearer ${input:gh}"}}, Inputs: []string{"gh"}}},
		{"vs code sse", `{"servers": {"old": {"type": "sse", "url": "http://localhost:8080/sse"}}}`,
			"servers", Entry{Name: "old", Type: "sse", URL: "http://localhost:8080/sse"}},
		{"vs code settings", `{"mcp": {"servers": {"s": {"command": "node", "args": ["s.js"]}}}}`,
			"mcp.servers", Entry{Name: "s", Type: "stdio", Command: "node", Args: []string{"s.js"}}},
		{"windsurf serverUrl", `{"mcpServers": {"w": {"serverUrl": "http://127.0.0.1:9/mcp", "disabled": true}}}`,
			"mcpServers", Entry{Name: "w", Type: "http", URL: "http://127.0.0.1:9/mcp", Disabled: true}},
		{"a // inside a string is no comment", `{"mcpServers": {"u": {"command": "x", "args": ["http://a/b", "/*x*/"]}}}`,
			"mcpServers", Entry{Name: "u", Type: "stdio", Command: "x", Args: []string{"http://a/b", "/*x*/"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse("c.json", []byte(tc.data))
			require.NoError(t, err)
			require.Len(t, got, 1)
			tc.want.Source, tc.want.Key = "c.json", tc.key
			assert.Equal(t, tc.want, got[0])
		})
	}
}

func TestParseErrorsNameTheFileAndTheEntry(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"mcpServers": {"a": {"command": "x", "args": [1]}}}`, "c.json: mcpServers.a: args[0]: want a string"},
		{`{"mcpServers": {"a": {"command": "x", "env": {"K": ["v"]}}}}`, "c.json: mcpServers.a: env: K: want a string"},
		{`{"mcpServers": {"a": {}}}`, "c.json: mcpServers.a: neither command nor url"},
		{`{"mcpServers": {"a": {"command": "x", "url": "http://127.0.0.1/"}}}`, "c.json: mcpServers.a: both command and url"},
		{`{"servers": {"a": {"type": "pigeon", "command": "x"}}}`, `c.json: servers.a: type "pigeon": want stdio, http or sse`},
		{`{"servers": {"a": {"type": "http", "command": "x"}}}`, "c.json: servers.a: type http without a url"},
	} {
		got, err := Parse("c.json", []byte(tc.data))
		require.NoError(t, err, tc.data)
		require.Len(t, got, 1)
		require.Error(t, got[0].Invalid, tc.data)
		assert.Contains(t, got[0].Invalid.Error(), tc.want)
	}
	for _, tc := range []struct{ data, want string }{
		{`[1]`, "c.json: not a JSON object"},
		{`{"other": {}}`, `c.json: no "mcpServers" or "servers" object`},
		{`{"mcpServers": [1]}`, "c.json: mcpServers: want an object of servers by name"},
	} {
		_, err := Parse("c.json", []byte(tc.data))
		require.Error(t, err, tc.data)
		assert.Contains(t, err.Error(), tc.want)
	}
}

func TestLoadIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"mcpServers": {}, "x": "`+strings.Repeat("a", MaxConfigBytes)+`"}`), 0o600))
	_, err := Load(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path+": larger than 1024 KiB")
	_, err = Load(filepath.Join(t.TempDir(), "none.json"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestPlaces(t *testing.T) {
	byClient := map[string]string{}
	for _, p := range Places("linux", "/home/u", "/proj", "") {
		byClient[p.Client] = p.Path
	}
	assert.Equal(t, map[string]string{
		"Claude Desktop":        "/home/u/.config/Claude/claude_desktop_config.json",
		"Claude Code (project)": "/proj/.mcp.json",
		"VS Code (workspace)":   "/proj/.vscode/mcp.json",
		"VS Code (user)":        "/home/u/.config/Code/User/mcp.json",
		"Cursor (project)":      "/proj/.cursor/mcp.json",
		"Cursor (user)":         "/home/u/.cursor/mcp.json",
		"Windsurf":              "/home/u/.codeium/windsurf/mcp_config.json",
		"Claude Code (user)":    "/home/u/.claude.json",
		"Gemini CLI":            "/home/u/.gemini/settings.json",
		"Codex":                 "/home/u/.codex/config.toml",
	}, byClient)
	mac := Places("darwin", "/Users/u", "/p", "")
	assert.Equal(t, "/Users/u/Library/Application Support/Claude/claude_desktop_config.json", mac[0].Path)
}

func TestSelect(t *testing.T) {
	entries := []Entry{{Name: "a"}, {Name: "b"}, {Name: "a"}}
	all, err := Select(entries, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "a-2"}, []string{all[0].Name, all[1].Name, all[2].Name})
	one, err := Select(entries, []string{"a-2", "a-2"})
	require.NoError(t, err)
	require.Len(t, one, 1)
	assert.Equal(t, "a-2", one[0].Name)
	_, err = Select(entries, []string{"c"})
	require.Error(t, err)
	assert.Equal(t, "--only: no server named c (the configurations have: a, b, a-2)", err.Error())
}
