package scan_test

import (
	"fmt"

	"github.com/sealmark/sealmark/internal/scan"
)

// Parse reads a client configuration: here VS Code's, with a comment, a
// trailing comma and an input the editor would ask for.
func ExampleParse() {
	entries, err := scan.Parse(".vscode/mcp.json", []byte(`{
  // the workspace's servers
  "servers": {
    "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "${workspaceFolder}"]},
    "github": {"type": "http", "url": "http://127.0.0.1:3000/mcp", "headers": {"Authorization": "Bearer ${input:token}"}},
  }
}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range entries {
		fmt.Println(e.Where(), e.Type, e.Command+e.URL, e.Inputs)
	}
	// Output:
	// .vscode/mcp.json: servers.files stdio npx []
	// .vscode/mcp.json: servers.github http http://127.0.0.1:3000/mcp [token]
}
