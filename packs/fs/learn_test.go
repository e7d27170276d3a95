package fs

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestArgsFromError reads the refusals real validators write for a call
// with no arguments.
func TestArgsFromError(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []learnedArg
	}{
		// server-filesystem 0.6.2 with zod 4 (seen by hand: tools/call read_multiple_files {})
		{"zod4", "Error: Invalid arguments for read_multiple_files: [\n  {\n    \"expected\": \"array\",\n    \"code\": \"invalid_type\",\n    \"path\": [\n      \"paths\"\n    ],\n    \"message\": \"Invalid input: expected array, received undefined\"\n  }\n]",
			[]learnedArg{{"paths", "array"}}},
		// zod 3's issue list
		{"zod3", `Invalid arguments for tool search: [{"code":"invalid_type","expected":"string","received":"undefined","path":["path"],"message":"Required"},{"code":"invalid_type","expected":"string","received":"undefined","path":["pattern"],"message":"Required"}]`,
			[]learnedArg{{"path", "string"}, {"pattern", "string"}}},
		{"zod flattened", "Validation failed:\npath: Required\ncontent: Required", []learnedArg{{"path", "string"}, {"content", "string"}}},
		{"pydantic", "2 validation errors for move_fileArguments\nsource\n  Field required [type=missing, input_value={}, input_type=dict]\ndestination\n  Field required [type=missing, input_value={}, input_type=dict]",
			[]learnedArg{{"source", "string"}, {"destination", "string"}}},
		{"missing argument", "MCP error -32602: missing required argument 'file_path'", []learnedArg{{"file_path", "string"}}},
		{"ajv", "data must have required property 'paths'", []learnedArg{{"paths", "array"}}},
		{"is required", `"directory" is required`, []learnedArg{{"directory", "string"}}},
		{"names nothing", "Error: invalid input", nil},
		{"not an issue list", `Error: ENOENT: no such file or directory, open '[1,2]'`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, argsFromError(tc.text))
		})
	}
}

// TestSchemaless tells an unknown schema from one that takes no arguments.
func TestSchemalessSchema(t *testing.T) {
	for schema, want := range map[string]bool{
		``: true, `null`: true, `{"$schema":"http://json-schema.org/draft-07/schema#"}`: true, `{"type":"object"}`: true,
		`{"type":"object","properties":{}}`: false, `{"type":"object","properties":{"path":{"type":"string"}}}`: false,
	} {
		assert.Equal(t, want, schemaless([]byte(schema)), "%s", schema)
	}
}
