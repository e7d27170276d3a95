package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/sarifcheck"
	"github.com/sealmark/sealmark/packs"
)

// TestRunStartURLAgainstTheRealEverythingServer is sealmark run --start …
// --url … against the real server-everything in streamable HTTP mode: the
// harness starts it in the sandbox, waits for the URL, runs the core pack
// over HTTP, and the reports say so; a secret header value is never shown.
func TestRunStartURLAgainstTheRealEverythingServer(t *testing.T) {
	node, js := everythingServer(t)
	dir := t.TempDir()
	jsonPath, sarifPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.sarif")
	const token = "sm-test-header-token-4711"
	code, out, errOut := sealmark(t, "run", "--quiet", "--packs", "core", "--sandbox-dir", t.TempDir(),
		"--timeout", "30s", "--call-timeout", "5s",
		"--env", "PORT={port}", "--start", node+" "+js+" streamableHttp", "--url", "http://127.0.0.1:{port}/mcp",
		"--header", "Authorization: Bearer "+token,
		"--json", jsonPath, "--sarif", sarifPath)
	rep := readReport(t, jsonPath)
	require.Empty(t, rep.HarnessError, "stdout:\n%s\nstderr:\n%s", out, errOut)
	assert.Equal(t, report.ExitCode(rep, packs.High), code)
	assert.Equal(t, 1, code, "the server's known HTTP failures (foreign Origin and Host accepted) are high")
	assert.Equal(t, "http", rep.Protocol.Transport)
	assert.Equal(t, "http://127.0.0.1:{port}/mcp", rep.Server.URL)
	verdicts := map[string]packs.Verdict{}
	for _, p := range rep.Packs[0].Probes {
		verdicts[p.ID] = p.Verdict
	}
	for id, want := range map[string]packs.Verdict{
		"CORE-INITIALIZE":      packs.Passed,
		"CORE-TOOLS-LIST":      packs.Passed,
		"CORE-HTTP-SESSION-ID": packs.Passed,
		"CORE-HTTP-ORIGIN":     packs.Failed,
		"CORE-STDOUT-JSONRPC":  packs.NotApplicable, // a stdio rule
	} {
		assert.Equal(t, want, verdicts[id], id)
	}
	assert.Contains(t, out, "header:Authorization")
	sarif, err := os.ReadFile(sarifPath)
	require.NoError(t, err)
	raw, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	for name, text := range map[string]string{"stdout": out, "stderr": errOut, "JSON": string(raw), "SARIF": string(sarif)} {
		assert.NotContains(t, text, token, "%s shows the header's value", name)
	}
	t.Run("SARIF schema", func(t *testing.T) {
		assert.NoError(t, sarifcheck.Validate(sarifcheck.Schema(t, "../.."), sarif))
	})
}

// everythingServer returns node and the pinned server-everything's script,
// or skips t with the reason when either is missing.
func everythingServer(t *testing.T) (node, js string) {
	t.Helper()
	js = realserver.Everything.Script(t)
	node, err := exec.LookPath("node")
	require.NoError(t, err)
	return node, js
}
