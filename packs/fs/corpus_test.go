package fs_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/fs"
)

// corpusFileTools is, for each of the 46 real tool lists of
// packs/core/testdata/toollists, every tool the fs pack takes for a file
// tool, as "tool role(path argument)" ("tool role (schemaless)" for a tool
// whose schema lists no arguments). Each was checked by reading the tool:
// the file servers keep all their file tools; the vendor API servers
// (server-github, both gitlab servers, airtable, notion, mapbox, circleci,
// brave, exa, firecrawl's web tools, shortcut, slack, asana...) get none,
// and neither do browser and cluster tools whose file argument is an
// optional output (playwright, chrome-devtools, kubernetes). A list not
// named here gets no tool.
//
// Three are taken that a run then leaves out, because their control (a
// benign call inside the root) fails: firecrawl_parse really reads a local
// file, but only documents (.pdf, .docx...), not ok.txt;
// git_set_working_dir (a local git server) sets a working directory and
// lists nothing; git-remove (a local git CLI server) takes a file out of
// the staging area without deleting it.
//
// Not taken although a file tool: pdf-reader's read_pdf, whose paths are
// inside sources[] objects, which the pack does not fill (a hint cannot
// name them either).
var corpusFileTools = map[string][]string{
	"@agent-infra/mcp-server-filesystem@1.2.29": {
		"create_directory mkdir(path)", "directory_tree list(path)", "edit_file edit(path)", "get_file_info stat(path)",
		"list_directory list(path)", "move_file move(source)", "read_file read(path)", "read_multiple_files read-many(paths)",
		"search_files search(path)", "write_file write(path)",
	},
	"@cyanheads/git-mcp-server@2.15.3": {"git_set_working_dir list(path)"},
	"firecrawl-mcp@3.26.0":             {"firecrawl_parse read(filePath)"},
	"github-mcp-server@1.8.7":          {"git-remove delete(file)"},
	"@modelcontextprotocol/server-filesystem@0.6.2": {
		"create_directory mkdir (schemaless)", "get_file_info stat (schemaless)", "list_directory list (schemaless)",
		"move_file move (schemaless)", "read_file read (schemaless)", "read_multiple_files read (schemaless)",
		"search_files search (schemaless)", "write_file write (schemaless)",
	},
	"@modelcontextprotocol/server-filesystem@2026.8.31": {
		"create_directory mkdir(path)", "directory_tree list(path)", "edit_file edit(path)", "get_file_info stat(path)",
		"list_directory list(path)", "list_directory_with_sizes list(path)", "move_file move(source)", "read_file read(path)",
		"read_media_file read(path)", "read_multiple_files read-many(paths)", "read_text_file read(path)",
		"search_files search(path)", "write_file write(path)",
	},
	"@wonderwhy-er/desktop-commander@0.2.52": {
		"create_directory mkdir(path)", "edit_block edit(file_path)", "get_file_info stat(path)", "list_directory list(path)",
		"move_file move(source)", "read_file read(path)", "read_multiple_files read-many(paths)", "start_search search(path)",
		"write_file write(path)", "write_pdf write(path)",
	},
}

// TestCorpusFileTools runs the fs pack's role inference over the 46 real
// tool lists: exactly the file tools above are taken, on no other server.
func TestCorpusFileTools(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "core", "testdata", "toollists", "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 46)
	seen := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var l struct {
			Server string            `json:"server"`
			Tools  []json.RawMessage `json:"tools"`
		}
		require.NoError(t, json.Unmarshal(b, &l), f)
		s := &packs.Surface{}
		for _, raw := range l.Tools {
			var tl packs.Tool
			require.NoError(t, json.Unmarshal(raw, &tl))
			tl.Raw = raw
			s.Tools = append(s.Tools, tl)
		}
		var got []string
		for _, ft := range fs.Tools(s, nil) {
			got = append(got, fmt.Sprintf("%s %s(%s)", ft.Name, ft.Role, ft.Path))
		}
		for _, ft := range fs.Pending(s, nil) {
			got = append(got, fmt.Sprintf("%s %s (schemaless)", ft.Name, ft.Role))
		}
		slices.Sort(got)
		seen[l.Server] = true
		assert.Equal(t, corpusFileTools[l.Server], got, l.Server)
		applies, why := fs.Pack.Applies(s)
		assert.Equal(t, len(got) > 0, applies, "%s: %s", l.Server, why)
	}
	for server := range corpusFileTools {
		assert.True(t, seen[server], "%s is not in the corpus", server)
	}
}
