package exec_test

import (
	"bytes"
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

	"github.com/sealmark/sealmark/internal/fixture/execserver"
	"github.com/sealmark/sealmark/sealmarktest"
)

// TestExecVictim runs the exec pack through sealmarktest against the
// background-hang twin, whose calls hang with sm-sleep alive; it runs only
// as the child of TestSignalMidPackCleansUp.
func TestExecVictim(t *testing.T) {
	dir, ok := os.LookupEnv("EXEC_VICTIM_SANDBOX_DIR")
	if !ok {
		t.Skip("runs only as the child of TestSignalMidPackCleansUp")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	sealmarktest.Server(t, sealmarktest.Config{
		Command: self, Args: []string{execserver.Verb, "-flaws=background-hang", "{sandbox}"},
		Packs: []string{"exec"}, Active: true, SandboxDir: dir,
	})
}

// TestSignalMidPackCleansUp interrupts a go test run of the exec pack
// while sm-sleep runs in the background of a hanging call, and checks that
// no process of the run is left (the server, bash, sm-sleep) and the
// sandbox is gone.
func TestSignalMidPackCleansUp(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run signalled mid-pack and the cleanup after it")
	}
	t.Parallel()
	self, err := os.Executable()
	require.NoError(t, err)
	sandboxes := t.TempDir()
	cmd := exec.Command(self, "-test.run=^TestExecVictim$")
	cmd.Env = append(os.Environ(), "EXEC_VICTIM_SANDBOX_DIR="+sandboxes)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	// Only the victim's own sm-sleep counts: the package's other tests
	// run sm-sleep too, and one of theirs seen first had the victim
	// signalled before it set its handler (exit -1, not 130).
	sleeping := func() bool {
		for _, pid := range ours(t) {
			b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
			if strings.Contains(string(b), "sm-sleep") && descends(pid, cmd.Process.Pid) {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(90 * time.Second)
	for !sleeping() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	require.True(t, sleeping(), "no sm-sleep ran within 90 s:\n%s", out.String())
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the test binary did not exit after SIGINT:\n%s", out.String())
	}
	assert.Equal(t, 128+int(syscall.SIGINT), cmd.ProcessState.ExitCode(), out.String())
	leftovers(t, sandboxes)
}

// descends reports whether pid is a descendant of root, walking up
// /proc/PID/stat's parent links (at most 64).
func descends(pid, root int) bool {
	for range 64 {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			return false
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			return false
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			return false
		}
		ppid, err := strconv.Atoi(f[1])
		if err != nil || ppid <= 1 {
			return false
		}
		if ppid == root {
			return true
		}
		pid = ppid
	}
	return false
}
