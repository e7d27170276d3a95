package scan

import (
	"path/filepath"
	"runtime"
)

// Place is where one MCP client keeps its configuration.
type Place struct {
	Client string // "Claude Desktop", "VS Code (workspace)", ...
	Path   string
}

// Places are the usual places of the MCP clients' configurations on goos,
// for a user whose home is home, in the project directory cwd; appData is
// %APPDATA% on Windows. Scan reads those that exist when no file is given.
func Places(goos, home, cwd, appData string) []Place {
	var claude, vscode string
	switch goos {
	case "darwin":
		claude = filepath.Join(home, "Library", "Application Support", "Claude")
		vscode = filepath.Join(home, "Library", "Application Support", "Code", "User")
	case "windows":
		claude = filepath.Join(appData, "Claude")
		vscode = filepath.Join(appData, "Code", "User")
	default:
		claude = filepath.Join(home, ".config", "Claude")
		vscode = filepath.Join(home, ".config", "Code", "User")
	}
	return []Place{
		{"Claude Desktop", filepath.Join(claude, "claude_desktop_config.json")},
		{"Claude Code (project)", filepath.Join(cwd, ".mcp.json")},
		{"VS Code (workspace)", filepath.Join(cwd, ".vscode", "mcp.json")},
		{"VS Code (user)", filepath.Join(vscode, "mcp.json")},
		{"Cursor (project)", filepath.Join(cwd, ".cursor", "mcp.json")},
		{"Cursor (user)", filepath.Join(home, ".cursor", "mcp.json")},
		{"Windsurf", filepath.Join(home, ".codeium", "windsurf", "mcp_config.json")},
		{"Claude Code (user)", filepath.Join(home, ".claude.json")},
		{"Gemini CLI", filepath.Join(home, ".gemini", "settings.json")},
		{"Codex", filepath.Join(home, ".codex", "config.toml")},
	}
}

// DefaultPlaces are Places for this machine.
func DefaultPlaces(home, cwd, appData string) []Place {
	return Places(runtime.GOOS, home, cwd, appData)
}
