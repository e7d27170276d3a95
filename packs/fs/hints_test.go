package fs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs/fs"
)

func TestParseHints(t *testing.T) {
	h, err := fs.ParseHints(map[string]any{
		"peek":         map[string]any{"role": "read", "path": "ref"},
		"transmogrify": map[string]any{"role": "move", "to": "into"},
		"read_file":    map[string]any{},
	}, nil)
	require.NoError(t, err)
	assert.Equal(t, []fs.Hint{{Tool: "peek", Role: fs.Read, Path: "ref"}, {Tool: "read_file"}, {Tool: "transmogrify", Role: fs.Move, To: "into"}}, h)

	at := func(key string) string { return "sealmark.yaml:9: " + key }
	_, err = fs.ParseHints(map[string]any{
		"a": map[string]any{"role": "reed"},
		"b": map[string]any{"rol": "read"},
		"c": "read",
		"d": map[string]any{"role": "read", "to": "x"},
		"e": map[string]any{"path": 3},
	}, at)
	require.Error(t, err)
	for _, want := range []string{
		`sealmark.yaml:9: hints.fs.a: unknown role "reed" (known: read, read-many, list, search, stat, write, edit, mkdir, move, delete, link)`,
		`sealmark.yaml:9: hints.fs.b: unknown key "rol" (known: role, path, to)`,
		`sealmark.yaml:9: hints.fs.c: want a map of role, path and to, got string`,
		`sealmark.yaml:9: hints.fs.d: to is for the move and link roles, not "read"`,
		`sealmark.yaml:9: hints.fs.e: path must be a string, got int`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	assert.EqualError(t, fs.CheckHints([]fs.Hint{{Tool: "peak"}}, []string{"peek"}, nil), `hints.fs.peak: the server lists no tool "peak" (its tools: peek)`)
}
