package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
)

// TestHarnessBinaryDirectlyInTmp builds sealmark straight into /tmp (go
// build -o /tmp/sealmark, a common habit) and runs --example with it: the
// server's private /tmp must still show the harness binary, which the
// example server and the sandbox's sm-* programs are, so the run ends with
// the example's documented exit 1 and its critical finding, not a start
// failure (exec .../sealmark: no such file or directory).
func TestHarnessBinaryDirectlyInTmp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command: not in -short")
	}
	if !contain.Probe().MountNS.Applied {
		t.Skip("no mount namespace here: the server's /tmp is the host's")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	bin := filepath.Join("/tmp", "smtest-harness-"+hex.EncodeToString(b[:]))
	t.Cleanup(func() { _ = os.Remove(bin) })
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, goCmd, "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	cmd := exec.CommandContext(ctx, bin, "run", "--example")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err = cmd.CombinedOutput()
	var exit *exec.ExitError
	require.True(t, err == nil || errors.As(err, &exit), "%v: %s", err, out)
	assert.Equal(t, 1, cmd.ProcessState.ExitCode(), "%s", out)
	assert.Contains(t, string(out), "CORE-SECRET-ECHO critical")
	assert.NotContains(t, string(out), "no such file or directory")
	assert.NotContains(t, string(out), "could not execute")
}
