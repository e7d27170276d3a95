package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/fixture/fsserver"
)

// TestHintsReachTheFsPack proves hints.fs in sealmark.yaml reaches the fs
// pack: a file server whose one tool, peek(ref), no guess takes for a file
// tool is not applicable without the hint and fails the prefix-sibling
// probe with it; an unknown role, key or tool is an error naming the file
// and line.
func TestHintsReachTheFsPack(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	server := "  command: " + self + "\n  args: [" + fsserver.Verb + ", -surface=renamed, -flaws=prefix-check, \"{sandbox}\"]\n"
	withConfig := func(t *testing.T, hints string) (int, string, string) {
		dir := t.TempDir()
		cfg := filepath.Join(dir, "sealmark.yaml")
		require.NoError(t, os.WriteFile(cfg, []byte("server:\n"+server+"packs: [fs]\n"+hints), 0o600))
		return sealmark(t, runArgs(t, "--config", cfg)...)
	}
	t.Run("without", func(t *testing.T) {
		t.Parallel()
		code, out, errOut := withConfig(t, "")
		assert.Contains(t, out, "no tool takes a path", "stderr: %s", errOut)
		assert.NotEqual(t, 1, code)
	})
	t.Run("with", func(t *testing.T) {
		t.Parallel()
		code, out, errOut := withConfig(t, "hints:\n  fs:\n    peek: {role: read, path: ref}\n")
		assert.Equal(t, 1, code, "stderr: %s", errOut)
		assert.Contains(t, out, `peek(ref="{sandbox}-evil/evil.txt") returned the content of root-evil/evil.txt`)
	})
	t.Run("unknown-role", func(t *testing.T) {
		code, _, errOut := withConfig(t, "hints:\n  fs:\n    peek: {role: reed, path: ref}\n")
		assert.Equal(t, 2, code)
		assert.Regexp(t, `sealmark\.yaml:7: hints\.fs\.peek: unknown role "reed"`, errOut)
	})
	t.Run("unknown-key", func(t *testing.T) {
		code, _, errOut := withConfig(t, "hints:\n  fs:\n    peek: {role: read, pth: ref}\n")
		assert.Equal(t, 2, code)
		assert.Regexp(t, `sealmark\.yaml:7: hints\.fs\.peek: unknown key "pth" \(known: role, path, to\)`, errOut)
	})
	t.Run("unknown-tool", func(t *testing.T) {
		t.Parallel()
		code, out, errOut := withConfig(t, "hints:\n  fs:\n    peak: {role: read, path: ref}\n")
		assert.Equal(t, 3, code)
		assert.Regexp(t, `sealmark\.yaml:7: hints\.fs\.peak: the server lists no tool "peak" \(its tools: peek\)`, out+errOut)
	})
}
