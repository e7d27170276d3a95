package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/slowtest"
)

// boundCases are servers that leave the harness a lot to clear away when
// a signal stops the run: a fork bomb that never ends (each wave held at
// the cgroup's 64 tasks) and 500,000 files in the sandbox.
var boundCases = []struct {
	name  string
	flaws string
	last  string // a file under the sandbox root that exists once the server is done making them ("" for none)
}{
	{"fork-bomb", "hang-on-call,endless-fork-bomb", ""},
	{"500k-files", "hang-on-call,many-files", "many/f499999"},
}

// signalOnceBusy runs the CLI on a fixture server with flaws, waits until
// the server's start is done (last exists under the root, when named) and
// the run has gone on to its probes, sends SIGTERM and returns how long
// the CLI took to exit. It fails tb unless the CLI exits 143 and leaves no
// process in the server's cgroup leaf, no sandbox directory and no mount.
func signalOnceBusy(tb testing.TB, flaws, last string) time.Duration {
	tb.Helper()
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	parent := tb.TempDir()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	marker := "sigbound-" + hex.EncodeToString(b)
	cmd := exec.Command(self, "run", "--packs", "core", "--sandbox-dir", parent, "--call-timeout", "60s", "--",
		self, fixture.Verb, "-flaws="+flaws, "-name="+marker)
	cmd.Env = append(os.Environ(), cliEnv+"=1")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	var pid int
	var leaf string
	deadline := time.Now().Add(slowtest.Scale(10 * time.Minute)) // 500,000 creates on a loaded machine
	for pid == 0 {
		if time.Now().After(deadline) {
			tb.Fatalf("the server never started; stderr:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
		pid, _ = findMarked(marker)
	}
	if leaf = cgroupOf(pid); leaf == "" {
		tb.Logf("the server runs in no cgroup leaf of its own: its processes are checked by the run's marker only")
	}
	if last != "" {
		tops, _ := filepath.Glob(filepath.Join(parent, "*", "root", filepath.FromSlash(last)))
		for len(tops) == 0 {
			if time.Now().After(deadline) {
				tb.Fatalf("the server never made %s; stderr:\n%s", last, stderr.String())
			}
			time.Sleep(200 * time.Millisecond)
			tops, _ = filepath.Glob(filepath.Join(parent, "*", "root", filepath.FromSlash(last)))
		}
	}
	// The run has gone on to its probes: a progress line after the files
	// (whose probes take tens of seconds each on a loaded machine while
	// the harness catches up with the flood), two after the fork bomb.
	want := strings.Count(stderr.String(), "\n") + 2
	if last != "" {
		want--
	}
	for strings.Count(stderr.String(), "\n") < want || !strings.Contains(stderr.String(), "core 2/") {
		if time.Now().After(deadline) {
			tb.Fatalf("the run never reached its probes; stderr:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(signalBudget):
		tb.Fatalf("sealmark did not exit within %s of SIGTERM; stderr:\n%s", signalBudget, stderr.String())
	}
	took := time.Since(sent)
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		tb.Errorf("exit code %d, want 143; stderr:\n%s", code, stderr.String())
	}
	if entries, err := os.ReadDir(parent); err != nil || len(entries) > 0 {
		tb.Errorf("sandbox left behind in %s: %v (%v)", parent, entries, err)
	}
	if m := mountsUnder(parent); len(m) > 0 {
		tb.Errorf("mounts left under %s: %q", parent, m)
	}
	if leaf != "" {
		if procs := leafProcs(leaf); len(procs) > 0 {
			tb.Errorf("processes left in the server's cgroup %s: %v", leaf, procs)
		}
	}
	if alive := markedAlive(marker); len(alive) > 0 {
		tb.Errorf("fixture processes of the run still alive: %v", alive)
	}
	return took
}

// TestSignalLeavesNothingPromptly sends SIGTERM to runs whose server
// forks without end or made 500,000 files, and checks each CLI exits 143
// within the generous signalBudget (the figure, logged, is what the
// design asks to be within 2 s; BenchmarkSignalExit reports it) and
// leaves no process in the server's cgroup, no sandbox and no mount.
func TestSignalLeavesNothingPromptly(t *testing.T) {
	if testing.Short() {
		t.Skip("a run whose server makes 500,000 files takes minutes; run without -short")
	}
	for _, tc := range boundCases {
		t.Run(tc.name, func(t *testing.T) {
			took := signalOnceBusy(t, tc.flaws, tc.last)
			t.Logf("SIGTERM to exit: %s", took.Round(time.Millisecond))
		})
	}
}

// BenchmarkSignalExit reports the time from SIGTERM to the CLI's exit for
// each of boundCases, as ms-to-exit (one run's start, minutes for the
// files, is outside the timer):
//
//	go test ./cmd/sealmark -run '^$' -bench SignalExit -benchtime 3x
func BenchmarkSignalExit(b *testing.B) {
	for _, tc := range boundCases {
		b.Run(tc.name, func(b *testing.B) {
			var total time.Duration
			for range b.N {
				total += signalOnceBusy(b, tc.flaws, tc.last)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-exit")
		})
	}
}

// cgroupOf is the cgroup v2 directory pid runs in, "" when there is none
// of its own (an unprivileged harness: no leaf to check).
func cgroupOf(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return ""
	}
	self, _ := os.ReadFile("/proc/self/cgroup")
	for line := range strings.SplitSeq(string(b), "\n") {
		if rel, ok := strings.CutPrefix(line, "0::"); ok && !strings.Contains(string(self), line) {
			return filepath.Join("/sys/fs/cgroup", rel)
		}
	}
	return ""
}

// leafProcs lists the pids in a cgroup leaf (none when it is gone).
func leafProcs(leaf string) []string {
	b, err := os.ReadFile(filepath.Join(leaf, "cgroup.procs"))
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}

// mountsUnder lists the mount points at or below dir.
func mountsUnder(dir string) []string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 && (fields[4] == dir || strings.HasPrefix(fields[4], dir+"/")) {
			out = append(out, fields[4])
		}
	}
	return out
}

// markedAlive lists live processes whose command line carries marker.
func markedAlive(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), marker) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
			continue
		}
		pids = append(pids, n)
	}
	return pids
}
