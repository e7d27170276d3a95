package contain_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/launch"
)

// newMarker returns a fresh "SEALMARK_RUN=<16 hex>" and registers a
// cleanup that fails the test if a process carrying it is still alive
// (after killing it).
func newMarker(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	m := "SEALMARK_RUN=" + hex.EncodeToString(b)
	t.Cleanup(func() {
		var left []int
		for range 100 {
			if left = marked(m); len(left) == 0 {
				return
			}
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Errorf("processes marked %s leaked: %v", m, left)
	})
	return m
}

// marked lists the live processes whose environment holds marker.
func marked(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if string(kv) == marker && !zombie(pid) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z' || b[i+2] == 'X'
}

// childSpec is the spec of the test binary acting as a server in mode,
// with a marked environment.
func childSpec(t *testing.T, mode string, args ...string) launch.Spec {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	return launch.Spec{
		Path: exe,
		Args: append([]string{childArg, mode}, args...),
		Env:  []string{"PATH=/usr/bin:/bin", "LANG=C", newMarker(t)},
		Dir:  t.TempDir(),
	}
}

// wrap is contain.Wrap that must not fail.
func wrap(t *testing.T, spec launch.Spec, o contain.Options) launch.Spec {
	t.Helper()
	w, err := contain.Wrap(spec, o)
	require.NoError(t, err)
	return w
}

// command builds the process launch.Start would: exactly spec's program,
// arguments, environment and directory, in a process group of its own.
func command(ctx context.Context, spec launch.Spec) *exec.Cmd {
	cmd := exec.CommandContext(ctx, spec.Path, spec.Args...)
	cmd.Env = spec.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Dir = spec.Dir
	cmd.ExtraFiles = spec.ExtraFiles
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// run runs spec to its end (10 s at most) and returns the JSON line it
// printed, its exit code and its stderr.
func run(t *testing.T, spec launch.Spec) (result, int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := command(ctx, spec)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	} else if err != nil {
		t.Fatalf("running %s: %v", spec.Path, err)
	}
	var r result
	if line, _, _ := strings.Cut(stdout.String(), "\n"); line != "" {
		require.NoError(t, json.Unmarshal([]byte(line), &r), "stdout %q", stdout.String())
	}
	return r, code, stderr.String()
}

// start starts spec and returns it with the first JSON line it printed.
// Cleanup kills its group and waits for it.
func start(t *testing.T, spec launch.Spec) (*exec.Cmd, result) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	cmd := command(ctx, spec)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		cancel()
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		lines <- line
	}()
	select {
	case line := <-lines:
		var r result
		require.NoError(t, json.Unmarshal([]byte(line), &r), "first line %q, stderr %q", line, stderr.String())
		return cmd, r
	case <-time.After(10 * time.Second):
		t.Fatalf("no output from %s within 10s; stderr %q", spec.Path, stderr.String())
		return nil, nil
	}
}

// serveHello listens on 127.0.0.1:0, answers every connection with
// "hello" and returns the port. The listener closes with the test.
func serveHello(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello"))
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// unusedPort returns a loopback port nothing listens on (one that was just
// free).
func unusedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

func needLayer(t *testing.T, name string) {
	t.Helper()
	iso := contain.Probe()
	for _, l := range iso.Layers() {
		if l.Name == name && !l.Applied {
			t.Skipf("%s does not apply here: %s", name, l.Why)
		}
	}
}

// lockedBuffer is a bytes.Buffer safe to read while a copier writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
