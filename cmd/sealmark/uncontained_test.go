package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDoctorNamesMissingContainment: on a system without the containment
// layers doctor fails the isolation check and says what run and scan do;
// with them it does not.
func TestDoctorNamesMissingContainment(t *testing.T) {
	_, out, _ := doctorRun(t, "--", "true")
	assert.NotContains(t, out, "no containment on")

	oldProbe, oldGOOS := probeLayers, doctorGOOS
	probeLayers = func() contain.Isolation { return contain.Isolation{} }
	doctorGOOS = "darwin"
	t.Cleanup(func() { probeLayers, doctorGOOS = oldProbe, oldGOOS })
	code, out, _ := doctorRun(t, "--", "true")
	assert.Equal(t, 2, code)
	assert.Regexp(t, checkLine("fail", "isolation", `no containment on darwin: run and scan refuse to start a server unless --uncontained is given`), out)
}

// TestUncontainedFlag: run and scan take --uncontained; on this system,
// which has the layers when the run is STANDARD, it changes nothing.
func TestUncontainedFlag(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"mcpServers": {"a": {"command": "sealmark-no-such-program"}}}`), 0o600))
	code, _, stderr := sealmark(t, "scan", "--quiet", "--uncontained", "--cache-dir", filepath.Join(dir, "c"), cfg)
	assert.NotEqual(t, 2, code, stderr)
	code, _, stderr = sealmark(t, "run", "--uncontained", "--", "sealmark-no-such-program")
	assert.NotEqual(t, 2, code, stderr)
}
