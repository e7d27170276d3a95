package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/fixture"
)

// findMarked returns the pid and process group of the fixture server whose
// command line carries marker (not the CLI that was given the same words),
// or 0.
func findMarked(marker string) (pid, pgid int) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(string(cmdline), "\x00")
		if err != nil || len(args) < 2 || args[1] != fixture.Verb || !bytes.Contains(cmdline, []byte(marker)) {
			continue
		}
		g, err := syscall.Getpgid(n)
		if err != nil {
			continue
		}
		return n, g
	}
	return 0, 0
}

// groupAlive lists live (non-zombie) processes of a process group.
func groupAlive(pgid int) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) > 2 && fields[0] != "Z" && fields[2] == strconv.Itoa(pgid) {
			pids = append(pids, n)
		}
	}
	return pids
}

// TestSignalsCleanUp interrupts a run mid-probe with each signal and checks
// that the CLI exits 128+n, and leaves no sandbox and no process of the
// server's group, not even the daemon the server forked.
func TestSignalsCleanUp(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			parent := t.TempDir()
			b := make([]byte, 6)
			_, _ = rand.Read(b)
			marker := "sigtest-" + hex.EncodeToString(b)
			cmd := exec.Command(self, "run", "--sandbox-dir", parent, "--call-timeout", "60s", "--",
				self, fixture.Verb, "-flaws=hang-on-call,fork-daemon", "-name="+marker)
			cmd.Env = append(os.Environ(), cliEnv+"=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

			var pgid int
			deadline := time.Now().Add(20 * time.Second)
			for pgid == 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
				_, pgid = findMarked(marker)
			}
			require.NotZero(t, pgid, "the server never started")
			// Let the run reach the hanging tool call.
			time.Sleep(300 * time.Millisecond)
			require.NoError(t, cmd.Process.Signal(sig))

			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("sealmark did not exit within 30s of %v; stderr:\n%s", sig, stderr.String())
			}
			assert.Equal(t, 128+int(sig), cmd.ProcessState.ExitCode(), "stderr:\n%s", stderr.String())
			entries, err := os.ReadDir(parent)
			require.NoError(t, err)
			assert.Empty(t, entries, "sandbox left behind")
			assert.Empty(t, groupAlive(pgid), "processes of the server's group still alive")
		})
	}
}
