package scan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJSONCSyntaxErrorHasLineAndColumn: a syntax error names the line and
// column of the original file, after comments (kept in their place) and a
// trailing comma.
func TestJSONCSyntaxErrorHasLineAndColumn(t *testing.T) {
	data := "{\n  // servers\n  /* two\n     lines */\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",},\n    \"b\": {\"command\" \"y\"}\n  }\n}\n"
	_, err := Parse("c.json", []byte(data))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "c.json:7:21: not a JSON object")
}

// TestJSONCStillReads: comments and trailing commas are allowed, and a
// comment-like text inside a string is kept.
func TestJSONCStillReads(t *testing.T) {
	data := "{\n  \"mcpServers\": { // the servers\n    \"a\": {\"command\": \"x\", \"args\": [\"http://127.0.0.1/a\", \"/*b*/\",],}, /* end */\n  },\n}\n"
	got, err := Parse("c.json", []byte(data))
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, []string{"http://127.0.0.1/a", "/*b*/"}, got[0].Args)
}
