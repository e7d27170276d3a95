package process

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// leader is a re-executed test binary started as a server is: in its own
// process group, with the run marker in its environment.
type leader struct {
	t     testing.TB
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
}

// startLeader starts the test binary in mode and registers, before anything
// else can fail, a cleanup that kills every process carrying marker and then
// fails the test if one is still alive.
func startLeader(t testing.TB, mode, marker string, env ...string) *leader {
	t.Helper()
	c := reexec(mode, append([]string{marker}, env...))
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	l := &leader{t: t, cmd: c, in: in, lines: make(chan string, 16)}
	t.Cleanup(func() { l.stop(); requireNoneLeft(t, marker) })
	go func() {
		defer close(l.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			l.lines <- sc.Text()
		}
	}()
	return l
}

func (l *leader) pid() int { return l.cmd.Process.Pid }

func (l *leader) send(line string) {
	l.t.Helper()
	if _, err := io.WriteString(l.in, line+"\n"); err != nil {
		l.t.Fatal(err)
	}
}

func (l *leader) read() string {
	l.t.Helper()
	select {
	case s, ok := <-l.lines:
		if !ok {
			l.t.Fatal("the leader's stdout ended")
		}
		return s
	case <-time.After(10 * time.Second):
		l.t.Fatal("no line from the leader in 10s")
	}
	return ""
}

func (l *leader) readPid() int {
	l.t.Helper()
	s := l.read()
	pid, err := strconv.Atoi(s)
	if err != nil {
		l.t.Fatalf("leader said %q, want a pid", s)
	}
	return pid
}

// stop kills the leader's group and waits for the leader, as the engine's
// shutdown does. It is idempotent.
func (l *leader) stop() {
	_ = syscall.Kill(-l.pid(), syscall.SIGKILL)
	done := make(chan struct{})
	go func() { _ = l.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		l.t.Error("the leader was not reaped within 10s")
	}
}

// carrying lists live processes whose environment or command line holds
// marker, read independently of the code under test.
func carrying(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := bytes.LastIndexByte(stat, ')'); i < 0 || len(stat) < i+3 || stat[i+2] == 'Z' {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		value := marker[strings.IndexByte(marker, '=')+1:]
		if bytes.Contains(env, []byte(marker)) || bytes.Contains(cmdline, []byte(value)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// requireNoneLeft waits a little for the processes that carry marker to
// die, reaping this process's adopted zombies, then kills what is left and
// fails the test if anything was.
func requireNoneLeft(t testing.TB, marker string) {
	t.Helper()
	settle := func(d time.Duration) []int {
		deadline := time.Now().Add(d)
		for {
			reapAdoptedForTest()
			left := carrying(marker)
			if len(left) == 0 || time.Now().After(deadline) {
				return left
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	left := settle(3 * time.Second)
	if len(left) == 0 {
		return
	}
	t.Errorf("processes of the test were left alive: %v", left)
	for _, pid := range left {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if still := settle(5 * time.Second); len(still) > 0 {
		t.Errorf("processes of the test still alive after SIGKILL: %v", still)
	}
}

// reapAdoptedForTest reaps zombie children of this process by pid. Only the
// test's own cleanup uses it, after every leader was waited for.
func reapAdoptedForTest() {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if s, ok := parseStat(b); ok && s.ppid == os.Getpid() && !s.alive() {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
	}
}

// exists reports whether /proc has pid, zombie or not.
func exists(pid int) bool {
	_, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid)))
	return err == nil
}
