package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScanCreatesTheCacheDir: a --cache-dir that does not exist yet is
// made, not refused.
func TestScanCreatesTheCacheDir(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"mcpServers": {"a": {"command": "sealmark-no-such-program"}}}`), 0o600))
	cache := filepath.Join(dir, "new", "cache")
	code, _, stderr := sealmark(t, "scan", "--quiet", "--cache-dir", cache, cfg)
	assert.NotEqual(t, 2, code, stderr)
	assert.NotContains(t, stderr, "--cache-dir")
	st, err := os.Stat(cache)
	require.NoError(t, err)
	assert.True(t, st.IsDir())
}
