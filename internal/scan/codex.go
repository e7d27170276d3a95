package scan

import (
	"encoding/json"
	"fmt"

	"github.com/BurntSushi/toml"
)

// ParseTOML reads Codex's config.toml: its [mcp_servers.NAME] tables
// (command, args, env, url) are read as a {"mcpServers": ...} file would
// be; the file's other tables are ignored. A syntax error names its line
// and column.
func ParseTOML(name string, data []byte) ([]Entry, error) {
	var top struct {
		Servers map[string]any `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(data), &top); err != nil {
		if pe, ok := err.(toml.ParseError); ok {
			return nil, fmt.Errorf("%s:%d:%d: not TOML: %s", name, pe.Position.Line, pe.Position.Col, pe.Message)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if top.Servers == nil {
		return nil, fmt.Errorf("%s: no [mcp_servers] table", name)
	}
	js, err := json.Marshal(map[string]any{"mcpServers": top.Servers})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return Parse(name, js)
}
