package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/report"
)

// TestInconclusiveHighProbeIsNoPass: a run where a probe at the fail bar
// (CORE-TOOL-PIN, high) ended inconclusive, beside one that passed, exits
// 3 and says why; --allow-inconclusive (or SEALMARK_ALLOW_INCONCLUSIVE)
// lets it exit 0. The same probes judged (a whole tool list) exit 0
// without the flag.
func TestInconclusiveHighProbeIsNoPass(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run with an inconclusive probe at the fail bar")
	}
	t.Parallel()
	lock := filepath.Join(t.TempDir(), "sealmark.lock.json")
	code, out, errOut := sealmark(t, append([]string{"pin", "--lock", lock, "--sandbox-dir", t.TempDir(), "--quiet", "--"}, serverArgs(t, "")...)...)
	require.Equal(t, 0, code, "pin: stdout %s\nstderr %s", out, errOut)

	probes := []string{"--probes", "core/tool-pin,core/initialize", "--lock", lock, "--quiet"}
	runWith := func(flaws string, extra ...string) (int, string, string) {
		args := append(runArgs(t, append(append([]string{}, probes...), extra...)...), "--")
		return sealmark(t, append(args, serverArgs(t, flaws)...)...)
	}

	code, out, errOut = runWith("pagination-loop")
	assert.Equal(t, report.ExitHarness, code, "an inconclusive high probe: stdout %s\nstderr %s", out, errOut)
	assert.Contains(t, out, "INCONCLUSIVE")
	assert.Contains(t, out, "\nincomplete: a check at or above fail_on, or a whole pack, ended inconclusive")

	code, out, errOut = runWith("pagination-loop", "--allow-inconclusive")
	assert.Equal(t, report.ExitClean, code, "--allow-inconclusive: stdout %s\nstderr %s", out, errOut)
	assert.NotContains(t, out, "\nincomplete:")

	code, out, errOut = runWith("pagination-loop", "--fail-on", "critical")
	assert.Equal(t, report.ExitClean, code, "below --fail-on critical: stdout %s\nstderr %s", out, errOut)

	code, out, errOut = runWith("")
	assert.Equal(t, report.ExitClean, code, "judged: stdout %s\nstderr %s", out, errOut)
}

// TestScanAllowInconclusive: scan takes --allow-inconclusive for every
// server: a server whose tool-pin probe (high) ended inconclusive reads
// INCOMPLETE and the scan exits 3; with the flag it exits by its findings (here 0: warnings only).
func TestScanAllowInconclusive(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: scan with --allow-inconclusive over inconclusive servers")
	}
	t.Parallel()
	dir := t.TempDir()
	self, err := os.Executable()
	require.NoError(t, err)
	config := func(name string, flaws string) string {
		path := filepath.Join(dir, name)
		writeJSONFile(t, path, map[string]any{"mcpServers": map[string]any{
			"srv": map[string]any{"command": self, "args": []string{fixture.Verb, "-flaws=" + flaws}},
		}})
		return path
	}
	locks := t.TempDir()
	scan := func(cfg string, extra ...string) (int, string, string) {
		args := append([]string{"scan", "--jobs", "1", "--packs", "core", "--sandbox-dir", t.TempDir(), "--call-timeout", "2s",
			"--cache-dir", t.TempDir(), "--lock-dir", locks, "--quiet"}, extra...)
		return sealmark(t, append(args, cfg)...)
	}
	code, out, errOut := scan(config("clean.json", ""), "--pin")
	require.Equal(t, 0, code, "pin: stdout %s\nstderr %s", out, errOut)

	looping := config("loop.json", "pagination-loop")
	code, out, errOut = scan(looping)
	assert.Equal(t, report.ExitHarness, code, "stdout %s\nstderr %s", out, errOut)
	assert.Regexp(t, `(?m)^srv +direct +INCOMPLETE `, out)
	assert.Contains(t, out, "CORE-TOOL-PIN high: inconclusive: the tool list was not read completely")

	code, out, errOut = scan(looping, "--allow-inconclusive")
	assert.Equal(t, report.ExitClean, code, "stdout %s\nstderr %s", out, errOut)
	assert.Regexp(t, `(?m)^srv +direct +warn +CORE-TOOLS-LIST medium `, out) // its findings are below --fail-on
	assert.NotContains(t, out, "INCOMPLETE")
}
