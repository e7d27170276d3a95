package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/scan"
	"github.com/sealmark/sealmark/packs"
)

// TestScanPinsOneLockPerServer: scan --pin writes one lock per server
// into --lock-dir; a scan with --lock-dir then compares each server with
// its own lock (the unchanged one passes tool-pin, the one that changed
// its tools fails it); scan --pin again prints what changed.
func TestScanPinsOneLockPerServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: scan --pin and a scan against its locks")
	}
	t.Parallel()
	dir, locks := t.TempDir(), t.TempDir()
	self, err := os.Executable()
	require.NoError(t, err)
	cfg := filepath.Join(dir, "mcp.json")
	servers := func(debugFlaws string) {
		writeJSONFile(t, cfg, map[string]any{"mcpServers": map[string]any{
			"notes": map[string]any{"command": self, "args": []string{fixture.Verb}},
			"debug": map[string]any{"command": self, "args": []string{fixture.Verb, "-flaws=" + debugFlaws}},
		}})
	}
	servers("echo-canary")
	code, out, errOut := sealmark(t, "scan", "--pin", "--lock-dir", locks, "--sandbox-dir", t.TempDir(), "--quiet", cfg)
	require.Equal(t, 0, code, "stdout %s\nstderr %s", out, errOut)
	assert.Contains(t, out, "notes: pinned 4 tools to "+filepath.Join(locks, "notes.lock.json")+" (new lock)\n")
	assert.Contains(t, out, "debug: pinned 5 tools to "+filepath.Join(locks, "debug.lock.json")+" (new lock)\n")

	servers("env-report")
	jsonPath := filepath.Join(dir, "scan.json")
	code, out, errOut = sealmark(t, "scan", "--lock-dir", locks, "--packs", "core", "--call-timeout", "2s", "--sandbox-dir", t.TempDir(), "--quiet", "--json", jsonPath, cfg)
	assert.Equal(t, 1, code, "stdout %s\nstderr %s", out, errOut)
	named, err := scan.ReadReports([]string{jsonPath})
	require.NoError(t, err)
	verdicts := map[string]report.Probe{}
	for _, n := range named {
		for _, pk := range n.Report.Packs {
			for _, p := range pk.Probes {
				if p.ID == "CORE-TOOL-PIN" {
					verdicts[n.Name] = p
				}
			}
		}
	}
	assert.Equal(t, packs.Passed, verdicts["notes"].Verdict, "%v", verdicts["notes"].Findings)
	if assert.Equal(t, packs.Failed, verdicts["debug"].Verdict) && assert.Len(t, verdicts["debug"].Findings, 2) {
		assert.Equal(t, `tool "debug_info" was removed since the lock (sealmark pin --update accepts it)`, verdicts["debug"].Findings[0].Message)
		assert.Equal(t, `tool "whoami" was added since the lock (sealmark pin --update accepts it)`, verdicts["debug"].Findings[1].Message)
	}

	code, out, errOut = sealmark(t, "scan", "--pin", "--lock-dir", locks, "--sandbox-dir", t.TempDir(), "--quiet", cfg)
	require.Equal(t, 0, code, "stdout %s\nstderr %s", out, errOut)
	assert.Contains(t, out, "notes: pinned 4 tools to "+filepath.Join(locks, "notes.lock.json")+" (no tool changed)\n")
	assert.Contains(t, out, "debug: pinned 5 tools to "+filepath.Join(locks, "debug.lock.json")+" (2 changed)\n"+
		"  tool \"debug_info\" was removed since the lock\n      - Show debugging information about the server process.\n"+
		"  tool \"whoami\" was added since the lock\n      + Report the server's environment and working directory as JSON.\n")
}
