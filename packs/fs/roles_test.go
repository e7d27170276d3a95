package fs_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/fs"
)

// surface builds a surface from tools/list entries as a server sends them.
func surface(t *testing.T, list string) *packs.Surface {
	t.Helper()
	var tools []packs.Tool
	require.NoError(t, json.Unmarshal([]byte(list), &tools))
	return &packs.Surface{Tools: tools}
}

func byName(tools []fs.Tool) map[string]fs.Tool {
	m := map[string]fs.Tool{}
	for _, t := range tools {
		t.Schema = nil
		m[t.Name] = t
	}
	return m
}

// The newest reference server's tool list, trimmed to what roles read.
const referenceTools = `[
 {"name":"read_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"tail":{"type":"number"},"head":{"type":"number"}},"required":["path"]},"annotations":{"readOnlyHint":true}},
 {"name":"read_media_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},"annotations":{"readOnlyHint":true}},
 {"name":"read_multiple_files","inputSchema":{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["paths"]},"annotations":{"readOnlyHint":true}},
 {"name":"write_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]},"annotations":{"readOnlyHint":false,"destructiveHint":true}},
 {"name":"edit_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string"},"newText":{"type":"string"}},"required":["oldText","newText"]}},"dryRun":{"type":"boolean","default":false}},"required":["path","edits"]}},
 {"name":"create_directory","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},
 {"name":"list_directory_with_sizes","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"sortBy":{"type":"string","enum":["name","size"]}},"required":["path"]},"annotations":{"readOnlyHint":true}},
 {"name":"directory_tree","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"excludePatterns":{"type":"array","items":{"type":"string"}}},"required":["path"]},"annotations":{"readOnlyHint":true}},
 {"name":"move_file","inputSchema":{"type":"object","properties":{"source":{"type":"string"},"destination":{"type":"string"}},"required":["source","destination"]}},
 {"name":"search_files","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"pattern":{"type":"string"},"excludePatterns":{"type":"array","items":{"type":"string"}}},"required":["path","pattern"]},"annotations":{"readOnlyHint":true}},
 {"name":"get_file_info","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},"annotations":{"readOnlyHint":true}},
 {"name":"list_allowed_directories","inputSchema":{"type":"object","properties":{}},"annotations":{"readOnlyHint":true}}
]`

func TestToolsOfTheReferenceServer(t *testing.T) {
	got := byName(fs.Tools(surface(t, referenceTools), nil))
	assert.Equal(t, map[string]fs.Tool{
		"read_file":                 {Name: "read_file", Role: fs.Read, Path: "path"},
		"read_media_file":           {Name: "read_media_file", Role: fs.Read, Path: "path"},
		"read_multiple_files":       {Name: "read_multiple_files", Role: fs.ReadMany, Path: "paths"},
		"write_file":                {Name: "write_file", Role: fs.Write, Path: "path", Content: "content"},
		"edit_file":                 {Name: "edit_file", Role: fs.Edit, Path: "path", Edits: "edits", Old: "oldText", New: "newText"},
		"create_directory":          {Name: "create_directory", Role: fs.Mkdir, Path: "path"},
		"list_directory_with_sizes": {Name: "list_directory_with_sizes", Role: fs.List, Path: "path"},
		"directory_tree":            {Name: "directory_tree", Role: fs.List, Path: "path", Recursive: true},
		"move_file":                 {Name: "move_file", Role: fs.Move, Path: "source", To: "destination"},
		"search_files":              {Name: "search_files", Role: fs.Search, Path: "path", Pattern: "pattern"},
		"get_file_info":             {Name: "get_file_info", Role: fs.Stat, Path: "path"},
	}, got, "list_allowed_directories takes no path and is left out")
}

func TestToolsFromOtherSurfaces(t *testing.T) {
	got := byName(fs.Tools(surface(t, `[
		{"name":"readFile","inputSchema":{"properties":{"filePath":{"type":"string"}},"required":["filePath"]}},
		{"name":"fetch_document","description":"Read a file by its file:// URI.","inputSchema":{"type":"object","properties":{"uri":{"type":"string"}},"required":["uri"]}},
		{"name":"fetch_page","description":"Fetch a web page.","inputSchema":{"type":"object","properties":{"uri":{"type":"string"}},"required":["uri"]}},
		{"name":"renameFile","inputSchema":{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"}}}},
		{"name":"create_symlink","inputSchema":{"type":"object","properties":{"linkPath":{"type":"string"},"target":{"type":"string"}}}},
		{"name":"replace_in_file","inputSchema":{"type":"object","properties":{"file":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"}}}},
		{"name":"write_note","description":"Write a note file.","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},
		{"name":"post_note","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},
		{"name":"frobnicate","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"target_dir":{"type":"string"}},"required":["target_dir"]}},
		{"name":"take_screenshot","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"filePath":{"type":"string"}}}},
		{"name":"transmogrify","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}},
		{"name":"get_weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}},
		{"name":"rm","inputSchema":{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"}},"path":{"type":"string"}}}}
	]`), nil))
	assert.Equal(t, map[string]fs.Tool{
		"readFile":        {Name: "readFile", Role: fs.Read, Path: "filePath"}, // no "type": "object", still probed
		"fetch_document":  {Name: "fetch_document", Role: fs.Read, Path: "uri", URI: true},
		"renameFile":      {Name: "renameFile", Role: fs.Move, Path: "from", To: "to"},
		"create_symlink":  {Name: "create_symlink", Role: fs.Link, Path: "linkPath", To: "target"},
		"replace_in_file": {Name: "replace_in_file", Role: fs.Edit, Path: "file", Old: "old_string", New: "new_string"},
		"write_note":      {Name: "write_note", Role: fs.Read, Path: "path"}, // readOnlyHint keeps it on the read side
		"frobnicate":      {Name: "frobnicate", Role: fs.Read, Path: "target_dir"},
		"rm":              {Name: "rm", Role: fs.Delete, Path: "path"},
	}, got, "transmogrify has no role to tell, get_weather no path; fetch_page and post_note never speak of files; take_screenshot's file is an optional output of a tool that is no file tool")
}

func TestHintsDecide(t *testing.T) {
	s := surface(t, `[
		{"name":"open_doc","inputSchema":{"type":"object","properties":{"name":{"type":"string"}}}},
		{"name":"transmogrify","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"into":{"type":"string"}}}},
		{"name":"read_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}
	]`)
	got := byName(fs.Tools(s, []fs.Hint{
		{Tool: "open_doc", Role: fs.Read, Path: "name"},
		{Tool: "transmogrify", Role: fs.Move, To: "into"},
		{Tool: "read_file"}, // no role: not probed
	}))
	assert.Equal(t, map[string]fs.Tool{
		"open_doc":     {Name: "open_doc", Role: fs.Read, Path: "name", Hinted: true},
		"transmogrify": {Name: "transmogrify", Role: fs.Move, Path: "path", To: "into", Hinted: true},
	}, got)

	ok, _ := fs.Hinted(fs.Hint{Tool: "open_doc", Role: fs.Read, Path: "name"}).Applies(s)
	assert.True(t, ok, "a hint makes the pack apply")
}

func TestNotApplicableWithoutPathTools(t *testing.T) {
	ok, why := fs.Pack.Applies(surface(t, `[{"name":"get_weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}]`))
	assert.False(t, ok)
	assert.Contains(t, why, "no tool takes a path: none of the 1 tools")
	ok, _ = fs.Pack.Applies(surface(t, referenceTools))
	assert.True(t, ok)
}

// A location is a path only when the tool speaks of files.
func TestLocationIsAPathOnlyForFileTools(t *testing.T) {
	got := byName(fs.Tools(surface(t, `[
		{"name":"get_forecast","description":"Weather forecast for a place.","inputSchema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}},
		{"name":"get_contents","description":"Read a file's contents.","inputSchema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}
	]`), nil))
	assert.Equal(t, map[string]fs.Tool{"get_contents": {Name: "get_contents", Role: fs.Read, Path: "location"}}, got)
}

// Schemaless tools that speak of files are pending, with the role and how
// it was told; others, and tools that declare no arguments, are not.
func TestPendingSchemaless(t *testing.T) {
	s := surface(t, `[
		{"name":"read_file","description":"Read a file.","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#"}},
		{"name":"do_it","title":"Delete a file","inputSchema":{}},
		{"name":"x1","description":"List the entries of a directory.","inputSchema":{}},
		{"name":"get_weather","description":"Weather for a city.","inputSchema":{}},
		{"name":"list_allowed_directories","description":"Directories this server may use.","inputSchema":{"type":"object","properties":{}}}
	]`)
	assert.Empty(t, fs.Tools(s, nil))
	got := byName(fs.Pending(s, nil))
	assert.Equal(t, map[string]fs.Tool{
		"read_file": {Name: "read_file", Role: fs.Read, How: "its name"},
		"do_it":     {Name: "do_it", Role: fs.Delete, How: "its title"},
		"x1":        {Name: "x1", Role: fs.List, How: "the first word of its description"},
	}, got)
	ok, _ := fs.Pack.Applies(s)
	assert.True(t, ok, "a schemaless file tool makes the pack apply")
}

// TestAPIArgumentsAreNoPaths: the arguments API servers were taken for
// paths by (issue #25: sort_dir, projectPath, repo_path, outputPath,
// file_name, a path inside a hosted repository) are none; the same names
// on a tool that works on this machine's files still are.
func TestAPIArgumentsAreNoPaths(t *testing.T) {
	got := byName(fs.Tools(surface(t, `[
		{"name":"list_merge_requests","description":"List merge requests of a project.","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"sort_dir":{"type":"string","description":"Sort direction: asc or desc"},"order_dir":{"type":"string","enum":["asc","desc"]}},"required":["sort_dir"]}},
		{"name":"get_pipeline","description":"Get the latest pipeline of a project.","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"projectPath":{"type":"string","description":"Project path, e.g. group/project"}},"required":["projectPath"]}},
		{"name":"git_show","description":"Shows the contents of a commit.","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"repo_path":{"type":"string","description":"Path to Git repository"},"revision":{"type":"string"}},"required":["repo_path","revision"]}},
		{"name":"save_report","description":"Save a usage report file.","inputSchema":{"type":"object","properties":{"report_id":{"type":"string"},"outputPath":{"type":"string","description":"Where to save the report"}},"required":["report_id","outputPath"]}},
		{"name":"save_page","description":"Save the page as a PDF.","inputSchema":{"type":"object","properties":{"outputPath":{"type":"string","description":"Directory path where the PDF will be saved"}}}},
		{"name":"get_attachment","description":"Get an attachment of a record.","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"record_id":{"type":"string"},"file_name":{"type":"string","description":"Name of the file"}},"required":["record_id","file_name"]}},
		{"name":"get_file_contents","description":"Get the contents of a file or directory from a GitHub repository","inputSchema":{"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},"path":{"type":"string","description":"Path to the file or directory"}},"required":["owner","repo","path"]}},
		{"name":"directions","description":"Route between two points.","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"routing_profile":{"type":"string"}},"required":["routing_profile"]}},
		{"name":"call_api","description":"Read any endpoint of the API.","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"The endpoint, e.g. /v1/users"}},"required":["path"]}},

		{"name":"analyze_project","description":"Analyze the code of a project.","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"projectPath":{"type":"string","description":"Absolute path to the project directory"}},"required":["projectPath"]}},
		{"name":"list_dir","description":"List a directory.","inputSchema":{"type":"object","properties":{"dir":{"type":"string","description":"The directory to list"}},"required":["dir"]}},
		{"name":"save_file","description":"Save text.","inputSchema":{"type":"object","properties":{"file_name":{"type":"string"},"text":{"type":"string"}},"required":["file_name","text"]}},
		{"name":"download_file","description":"Download a file from a bucket.","inputSchema":{"type":"object","properties":{"bucket":{"type":"string"},"key":{"type":"string"},"local_path":{"type":"string","description":"Local path to save the file to"}},"required":["bucket","key","local_path"]}}
	]`), nil))
	assert.Equal(t, map[string]fs.Tool{
		"analyze_project": {Name: "analyze_project", Role: fs.Read, Path: "projectPath"},
		"list_dir":        {Name: "list_dir", Role: fs.List, Path: "dir"},
		"save_file":       {Name: "save_file", Role: fs.Write, Path: "file_name", Content: "text"},
		"download_file":   {Name: "download_file", Role: fs.Read, Path: "local_path"},
	}, got)
}
