package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
)

// harnessChildEnv makes TestHarnessChild run: the harness the SIGKILL test
// kills. Its value is the sandbox parent directory.
const harnessChildEnv = "SEALMARK_TEST_HARNESS_CHILD"

// TestHarnessChild is a whole run against the daemon fixture, in a process
// of its own so that TestSIGKILLedHarness can kill it mid-run.
func TestHarnessChild(t *testing.T) {
	dir := os.Getenv(harnessChildEnv)
	if dir == "" {
		t.Skip("the harness TestSIGKILLedHarness kills; runs only as its child")
	}
	cfg := fixtureConfig(t, "daemon")
	cfg.SandboxDir = dir
	if off := os.Getenv(harnessChildEnv + "_OFF"); off != "" {
		cfg.LayersOff = strings.Split(off, ",")
	}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	e.Run(context.Background(), engine.Hooks{})
}

// TestSIGKILLedHarness kills a harness with SIGKILL while its server runs
// and has double-forked a daemon: where the namespaces layer applies,
// nothing of the server survives it, and the next run sweeps the sandbox
// the dead harness left. With it (and the cgroup) off the daemon survives the
// harness, and the next run's sweep kills it by its run marker.
func TestSIGKILLedHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a harness killed with SIGKILL while its daemon runs")
	}
	t.Run("namespaces", func(t *testing.T) {
		iso := contain.Probe()
		if !iso.PidNS.Applied {
			t.Skipf("no pid namespace here (%s): a SIGKILLed harness's daemon is left to the next run's sweep", iso.PidNS.Why)
		}
		killHarness(t, "", false)
	})
	t.Run("namespaces-off", func(t *testing.T) { killHarness(t, "namespaces,cgroup", true) })
}

func killHarness(t *testing.T, off string, survives bool) {
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	child := exec.CommandContext(ctx, exe, "-test.count=1", "-test.run=^TestHarnessChild$")
	// The child dies by SIGKILL before its own t.TempDir cleanup: its
	// temporary directories go under one of this test's, which is removed.
	child.Env = append(os.Environ(), harnessChildEnv+"="+dir, harnessChildEnv+"_OFF="+off, "TMPDIR="+t.TempDir())
	child.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, child.Start())
	waited := make(chan struct{})
	go func() { _ = child.Wait(); close(waited) }()

	// Wait for the daemon: the server is running and has double-forked.
	deadline := time.Now().Add(30 * time.Second)
	for len(runProcs(dir, "sm-sleep\x00600")) == 0 {
		if time.Now().After(deadline) {
			_ = child.Process.Kill()
			t.Fatal("the server never started its daemon")
		}
		select {
		case <-waited:
			t.Fatal("the harness ended before the daemon was seen")
		case <-time.After(5 * time.Millisecond):
		}
	}
	require.NotEmpty(t, runProcs(dir, ""), "the server's processes are running")
	require.NoError(t, child.Process.Signal(syscall.SIGKILL))
	<-waited

	deadline = time.Now().Add(5 * time.Second)
	for len(runProcs(dir, "")) > 0 && time.Now().Before(deadline) && !survives {
		time.Sleep(10 * time.Millisecond)
	}
	if survives {
		time.Sleep(200 * time.Millisecond)
		require.NotEmpty(t, runProcs(dir, "sm-sleep\x00600"), "without namespaces the daemon should outlive a SIGKILLed harness")
	} else {
		assert.Empty(t, runProcs(dir, ""), "processes of the killed harness's server survived it")
	}

	// A quota's guard takes the sandbox's tmpfs out of the host's mount
	// namespace, keeping the owner file on disk for the sweep.
	assert.Eventually(t, func() bool { return !mountedUnder(dir) }, 20*time.Second, 20*time.Millisecond,
		"the killed harness's sandbox tmpfs is still mounted")
	stale, _ := filepath.Glob(filepath.Join(dir, "sealmark-*"))
	require.NotEmpty(t, stale, "the killed harness left no sandbox (nothing to sweep)")
	var log bytes.Buffer
	cfg := fixtureConfig(t, "")
	cfg.SandboxDir, cfg.Log, cfg.Packs = dir, &log, []string{"core"}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	e.Run(context.Background(), engine.Hooks{})
	assert.Contains(t, log.String(), "stale run:")
	for _, d := range stale {
		_, err := os.Stat(d)
		assert.True(t, os.IsNotExist(err), "the stale sandbox %s is still there", d)
	}
	assert.Empty(t, runProcs(dir, "sm-sleep"), "the next run's sweep left the dead harness's daemon alive")
	barriers, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("sealmark-files-%d-*", child.Process.Pid)))
	assert.Empty(t, barriers, "the next run's sweep left the dead harness's files-observer directory")
}

// runProcs lists the live processes whose working directory is beneath
// dir and whose command line contains substr ("" for any).
func runProcs(dir, substr string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		// By its working directory, or, once a quota's guard detached the
		// sandbox's tmpfs from under it, by its environment (HOME, TMPDIR).
		cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd")
		environ, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		if (err != nil || !strings.HasPrefix(cwd, dir+"/")) && !strings.Contains(string(environ), "="+dir+"/") {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if strings.Contains(string(stat), ") Z ") || !strings.Contains(string(cmdline), substr) {
			continue
		}
		out = append(out, e.Name()+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return out
}

// mountedUnder reports whether a mount of this mount namespace lies
// beneath dir.
func mountedUnder(dir string) bool {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 && strings.HasPrefix(f[4], dir+"/") {
			return true
		}
	}
	return false
}
