package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/quota"
)

// TestQuotaGoneAfterSIGKILL: a harness with a quota-bound sandbox is
// killed with SIGKILL; its quota's guard then unmounts the tmpfs from the
// host's mount namespace and removes the sandbox directory, so neither is
// left for the next run's sweep. A sandbox with the run's owner file
// (quota.KeptFile) keeps that file, on disk, for the sweep.
func TestQuotaGoneAfterSIGKILL(t *testing.T) {
	t.Run("plain", func(t *testing.T) { killVictim(t, false) })
	t.Run("owned", func(t *testing.T) { killVictim(t, true) })
}

func killVictim(t *testing.T, owned bool) {
	self, err := os.Executable()
	require.NoError(t, err)
	parent := t.TempDir()
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), victimEnv+"="+parent)
	if owned {
		cmd.Env = append(cmd.Env, victimEnv+"_OWNER=1")
	}
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		lines <- line
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(60 * time.Second):
		t.Fatal("the victim made no sandbox within 60 s")
	}
	f := strings.Fields(line)
	require.Len(t, f, 2, "victim said %q", line)
	top := f[0]
	if f[1] == "0" {
		t.Skip("no quota on this machine: nothing is mounted to be left")
	}
	require.True(t, mountedIn(t, top), "the quota is mounted on %s while the victim runs", top)

	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	assert.Eventually(t, func() bool { return !mountedIn(t, top) }, 20*time.Second, 20*time.Millisecond,
		"the tmpfs on %s is still mounted in the host's mount namespace", top)
	if owned {
		require.Eventually(t, func() bool { _, err := os.Lstat(filepath.Join(top, quota.KeptFile)); return err == nil }, 20*time.Second, 20*time.Millisecond,
			"the owner file is not back on disk in %s", top)
		b, err := os.ReadFile(filepath.Join(top, quota.KeptFile))
		require.NoError(t, err)
		assert.Equal(t, "owner\n", string(b))
		return
	}
	assert.Eventually(t, func() bool { _, err := os.Lstat(top); return os.IsNotExist(err) }, 20*time.Second, 20*time.Millisecond,
		"the sandbox directory %s is still there", top)
}
