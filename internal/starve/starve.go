// Package starve starves a server the engine runs, for the tests that
// require the same verdicts on a loaded machine as at rest: the server
// gets Percent of one CPU, and the harness is niced.
//
//	cfg := engine.Config{Command: "node", Args: []string{script}}
//	how := starve.Server(t, &cfg) // skips t where no CPU cgroup can be made
//	starve.Harness(t)             // until t ends
//	rep := run(cfg)
//
// The server is starved inside its own cgroup leaf where the leaf can carry
// a CPU limit (engine.Config.CPUPercent: cpu.max on the leaf, or a cgroup
// v1 cpu group its shim joins), so the leaf's pids.max and memory.max
// still hold it. Only where it cannot (no cgroup leaf: not root, or
// containment off) are its processes moved, as they appear, into a CPU
// cgroup of the test's own; they are found by a marker in their
// environment, which the server inherits.
package starve

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/environ"
)

// Percent is the share of one CPU a starved server gets: at 5% node takes
// 20 times as long for anything it computes, more than a load of 30 on two
// cores gave it.
const Percent = 5

// How a server is starved, as Server returns it.
const (
	InLeaf = "in its cgroup leaf" // engine.Config.CPUPercent
	Moved  = "moved to a CPU cgroup of the test's own"
)

// markerEnv is the variable whose value marks a moved server's processes.
const markerEnv = "SEALMARK_STARVE_MARK"

// Server starves the server cfg starts and says how (InLeaf or Moved).
// It skips t where neither way is open.
func Server(t testing.TB, cfg *engine.Config) string {
	t.Helper()
	leafErr := contain.CPULimitOffered()
	if leafErr == nil && !cfg.NoSandbox {
		cfg.CPUPercent = Percent
		return InLeaf
	}
	dir, err := group()
	if err != nil {
		t.Skipf("no CPU cgroup to starve the server in: %v (its own leaf: %v)", err, leafErr)
	}
	marker := "sealmark-starve-" + rand.Text()
	cfg.Env = append(cfg.Env, environ.KV{Name: markerEnv, Value: marker})
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { move(dir, []byte(markerEnv+"="+marker+"\x00"), done) })
	t.Cleanup(func() {
		close(done)
		wg.Wait()
		// Its processes are gone once the run ended; rmdir fails only
		// while one lingers.
		for i := 0; i < 50 && os.Remove(dir) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	return Moved
}

// move polls /proc until done and moves every process whose environment
// holds mark into dir.
func move(dir string, mark []byte, done <-chan struct{}) {
	moved := map[int]bool{}
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		ents, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || moved[pid] {
				continue
			}
			env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
			if err == nil && bytes.Contains(append([]byte{0}, env...), append([]byte{0}, mark...)) &&
				os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0) == nil {
				moved[pid] = true
			}
		}
	}
}

// group makes the CPU cgroup of Moved and sets its quota: cgroup v2's
// cpu.max where the v2 hierarchy has the cpu controller, else cgroup v1's
// cpu.cfs_quota_us.
func group() (string, error) {
	name := "sealmark-test-starve-" + rand.Text()[:8]
	quota := strconv.Itoa(Percent * 1000)
	for _, v2 := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		ctl, err := os.ReadFile(filepath.Join(v2, "cgroup.controllers"))
		if err != nil || !bytes.Contains(ctl, []byte("cpu")) {
			continue
		}
		dir := filepath.Join(v2, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "cpu.max"), []byte(quota+" 100000"), 0); err != nil {
			_ = os.Remove(dir)
			return "", err
		}
		return dir, nil
	}
	v1 := "/sys/fs/cgroup/cpu"
	if _, err := os.Stat(filepath.Join(v1, "cpu.cfs_quota_us")); err != nil {
		return "", errors.New("neither cgroup v2's cpu controller nor cgroup v1's cpu hierarchy is here")
	}
	dir := filepath.Join(v1, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	for _, f := range [][2]string{{"cpu.cfs_period_us", "100000"}, {"cpu.cfs_quota_us", quota}} {
		if err := os.WriteFile(filepath.Join(dir, f[0]), []byte(f[1]), 0); err != nil {
			_ = os.Remove(dir)
			return "", fmt.Errorf("%s: %v", f[0], err)
		}
	}
	return dir, nil
}

// Niceness is the harness's while Harness holds: the lowest priority.
const Niceness = 19

// Harness nices every thread of the test process (the harness, and the
// threads it makes from now on) to Niceness until t ends, then restores
// each thread's own. A server the harness starts meanwhile is not niced
// with it: it starts at the niceness the process started with
// (internal/launch), and its quota alone starves it. It skips t where the niceness cannot be set.
func Harness(t testing.TB) {
	t.Helper()
	was, err := renice(func(int) int { return Niceness })
	if err != nil {
		t.Skipf("niceness: %v", err)
	}
	t.Cleanup(func() {
		_, _ = renice(func(tid int) int {
			if n, ok := was[tid]; ok {
				return n
			}
			return 0 // a thread made meanwhile, niced by its parent
		})
	})
}

// renice sets every thread's niceness to to(tid) and returns each one's
// before.
func renice(to func(tid int) int) (map[int]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	was := map[int]int{}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		// getpriority's raw value is 20 - niceness.
		prio, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
		if err != nil {
			continue // the thread ended
		}
		was[tid] = 20 - prio
		if err := unix.Setpriority(unix.PRIO_PROCESS, tid, to(tid)); err != nil && !errors.Is(err, unix.ESRCH) {
			return was, fmt.Errorf("thread %d: %w", tid, err)
		}
	}
	return was, nil
}
