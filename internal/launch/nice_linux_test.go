package launch_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/launch"
)

// TestServerNotNicedWithHarness: a harness niced after it started (as the
// load test nices itself to 19) starts its server at the niceness the
// harness process started with, not at its own.
func TestServerNotNicedWithHarness(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("lowering a niceness back needs CAP_SYS_NICE (root)")
	}
	base := threadNice(t, 0)
	if base == 19 {
		t.Skip("the test process started at niceness 19 already")
	}
	niceAll(t, 19)
	p := start(t, "sleeper", launch.Spec{})
	if got := statNice(t, p.Pid()); got != base {
		t.Errorf("the server started at niceness %d, want %d (the harness's at its start, not its 19 now)", got, base)
	}
	if got := threadNice(t, 0); got != 19 {
		t.Errorf("the harness's thread is at niceness %d after the start, want it put back to 19", got)
	}
}

// threadNice is the niceness of thread tid (0: the calling one).
func threadNice(t *testing.T, tid int) int {
	t.Helper()
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		t.Fatal(err)
	}
	return 20 - prio // the raw value of the system call
}

// niceAll nices every thread of the test process to n until t ends.
func niceAll(t *testing.T, n int) {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	was := map[int]int{}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		prio, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
		if err != nil {
			continue // the thread ended
		}
		was[tid] = 20 - prio
		if err := unix.Setpriority(unix.PRIO_PROCESS, tid, n); err != nil && err != unix.ESRCH {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		ents, _ := os.ReadDir("/proc/self/task")
		for _, e := range ents {
			if tid, err := strconv.Atoi(e.Name()); err == nil {
				n, ok := was[tid]
				if !ok {
					n = 0
				}
				_ = unix.Setpriority(unix.PRIO_PROCESS, tid, n)
			}
		}
	})
}

// statNice is field 19 of /proc/PID/stat, the process's niceness.
func statNice(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // from field 3
	n, err := strconv.Atoi(fields[19-3])
	if err != nil {
		t.Fatalf("/proc/%d/stat: %v", pid, err)
	}
	return n
}
