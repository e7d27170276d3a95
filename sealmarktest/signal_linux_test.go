package sealmarktest_test

import (
	"bytes"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSignalMidRunCleansUp interrupts a go test run of a server whose tool
// calls hang, and checks that Main stopped the server and deleted the
// sandbox before the test binary exited.
func TestSignalMidRunCleansUp(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			sandboxes := t.TempDir()
			cmd := exec.Command(self, "-test.run=^TestVictim$")
			cmd.Env = append(os.Environ(), "VICTIM_FLAWS=hang-on-call", "VICTIM_SANDBOX_DIR="+sandboxes)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			// Wait until the sandbox exists, then for the hanging call.
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) {
				if entries, _ := os.ReadDir(sandboxes); len(entries) > 0 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(300 * time.Millisecond)
			require.NoError(t, cmd.Process.Signal(sig))
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("the test binary did not exit after %v:\n%s", sig, out.String())
			}
			assert.Equal(t, 128+int(sig), cmd.ProcessState.ExitCode(), out.String())
			entries, err := os.ReadDir(sandboxes)
			require.NoError(t, err)
			assert.Empty(t, entries, "sandbox left behind")
		})
	}
}
