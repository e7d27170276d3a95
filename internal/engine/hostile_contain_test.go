package engine_test

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/observers"
)

// escapeRun runs the core pack against the escape fixture: every tool call
// connects to an outsider (a second loopback port the harness's policy does
// not allow, standing for an outside address), looks a name up when lo is
// its only interface, writes a file outside the sandbox, double-forks a
// daemon and sends SIGWINCH to this process. It returns the report and what
// reached the outsider, the file and the signal handler.
func escapeRun(t *testing.T, off ...string) (rep *report.Report, file string, connected, written, signalled bool) {
	out := newOutsider(t)
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGWINCH)
	defer signal.Stop(sigs)
	file = filepath.Join(t.TempDir(), "escaped.txt") // not beneath the sandbox's top

	var sandboxes string
	rep = observedRun(t, "escape", func(c *engine.Config) { c.LayersOff = off; sandboxes = c.SandboxDir },
		"-outside="+out.addr, "-outside-file="+file, fmt.Sprintf("-signal-pid=%d", os.Getpid()))
	t.Logf("isolation: %s", rep.Sandbox.Isolation)
	connected = out.reached()
	_, err := os.Stat(file)
	written = err == nil
	select {
	case <-sigs:
		signalled = true
	default:
	}
	assertNoSleeperOutlives(t, sandboxes)
	return rep, file, connected, written, signalled
}

// TestHostileServerIsContained: with every layer this machine offers, each
// way out is blocked, what the harness can observe of it is recorded and
// attributed to the probe that caused it, and nothing outlives the run.
func TestHostileServerIsContained(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the hostile server against every containment layer")
	}
	rep, file, connected, written, signalled := escapeRun(t)
	iso := rep.Sandbox.Isolation
	assert.Equal(t, report.Standard, rep.Class, "every layer on: the run is not custom")
	assert.False(t, connected, "the connection to the outsider arrived")
	if strings.Contains(iso, "fs=landlock") {
		assert.False(t, written, "the write outside the sandbox landed")
	} else {
		t.Logf("writes outside the sandbox are not blocked here: %s", iso)
	}
	if strings.Contains(iso, "pidns") || strings.Contains(iso, "signals=landlock-scoped") {
		assert.False(t, signalled, "the server's signal reached the harness")
	}

	sweep := probeRecords(rep, "CORE-TOOL-SWEEP")
	if strings.Contains(iso, "seccomp-notify") {
		r := find(sweep, observers.KindSocket, func(r observers.Record) bool { return r.Data["op"] == "connect" && r.Data["port"] != "53" })
		require.NotNil(t, r, "the connect to the outsider was not recorded in the probe that caused it: %v", sweep)
		assert.Equal(t, "deny", r.Data["verdict"])
		// The write and the signal are blocked (Landlock, the pid
		// namespace) but on record all the same, in the probe that tried.
		write := find(sweep, observers.KindProcess, func(r observers.Record) bool {
			// the report shows the path with its stable names ({cwd}/...)
			return r.Data["op"] == "open-write" && strings.HasSuffix(r.Data["path"], filepath.Base(filepath.Dir(file))+"/escaped.txt")
		})
		assert.NotNil(t, write, "the open for writing outside the sandbox was not recorded: %v", sweep)
		sig := find(sweep, observers.KindProcess, func(r observers.Record) bool {
			return r.Data["op"] == "signal" && r.Data["signal"] == "SIGWINCH" && r.Data["target"] == fmt.Sprint(os.Getpid())
		})
		assert.NotNil(t, sig, "the signal to the harness was not recorded: %v", sweep)
		if strings.Contains(iso, "netns(lo-only)") {
			dns := find(sweep, observers.KindSocket, func(r observers.Record) bool { return r.Data["port"] == "53" })
			require.NotNil(t, dns, "the name lookup's query was not recorded: %v", sweep)
			assert.Equal(t, "deny", dns.Data["verdict"])
		}
	}
	orphan := find(rep.Timeline, observers.KindProcess, func(r observers.Record) bool {
		return r.Data["op"] == "orphan" && strings.Contains(r.Data["argv"], "sm-sleep")
	})
	assert.NotNil(t, orphan, "the daemon that outlived the server was not recorded")
}

// TestHostileServerUncontained is the same server with the layers off: the
// connection, the write and the signal land. It proves the fixture makes
// every attempt, so the contained run's silence is containment's doing.
func TestHostileServerUncontained(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the hostile server with the layers off")
	}
	rep, _, connected, written, signalled := escapeRun(t, "landlock", "seccomp", "namespaces")
	assert.Equal(t, report.Custom, rep.Class)
	assert.Contains(t, strings.Join(rep.ClassReasons, "; "), "sandbox.layers_off: landlock, seccomp, namespaces")
	assert.Contains(t, rep.Sandbox.Isolation, "off by config")
	assert.True(t, connected, "the uncontained server's connection did not arrive")
	assert.True(t, written, "the uncontained server's write outside the sandbox did not land")
	assert.True(t, signalled, "the uncontained server's signal did not arrive")
	orphan := find(rep.Timeline, observers.KindProcess, func(r observers.Record) bool {
		return r.Data["op"] == "orphan" && strings.Contains(r.Data["argv"], "sm-sleep")
	})
	assert.NotNil(t, orphan, "the daemon was not recorded")
}

// assertNoSleeperOutlives fails for any live sm-sleep 600 (the daemon) of
// this run: one whose working directory or environment (the sandbox's bin
// on its PATH) lies beneath sandboxes, the run's own sandbox directory.
// Other packages' tests run in parallel and start sm-sleep 600 too; theirs
// live beneath their own temporary directories and are not this run's.
func assertNoSleeperOutlives(t *testing.T, sandboxes string) {
	t.Helper()
	require.NotEmpty(t, sandboxes)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		dir := "/proc/" + e.Name()
		cmdline, err := os.ReadFile(dir + "/cmdline")
		if err != nil || !strings.Contains(string(cmdline), "sm-sleep\x00600") {
			continue
		}
		cwd, _ := os.Readlink(dir + "/cwd")
		environ, _ := os.ReadFile(dir + "/environ")
		if !strings.HasPrefix(cwd, sandboxes+"/") && !strings.Contains(string(environ), sandboxes+"/") {
			continue // another test's sleeper
		}
		stat, _ := os.ReadFile(dir + "/stat")
		if !strings.Contains(string(stat), ") Z ") {
			t.Errorf("pid %s (sm-sleep 600, %s) outlived the run", e.Name(), cwd)
		}
	}
}

// outsider is a loopback listener standing for an address outside the
// machine: the harness's policy does not allow its port, so a contained
// server's connection must never reach it.
type outsider struct {
	addr    string
	port    int
	arrived chan struct{}
}

func newOutsider(t *testing.T) *outsider {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	o := &outsider{addr: ln.Addr().String(), port: ln.Addr().(*net.TCPAddr).Port, arrived: make(chan struct{}, 1)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
			select {
			case o.arrived <- struct{}{}:
			default:
			}
		}
	}()
	return o
}

// reached reports whether a connection arrived (waiting briefly for one
// still in flight).
func (o *outsider) reached() bool {
	select {
	case <-o.arrived:
		return true
	case <-time.After(50 * time.Millisecond):
		return false
	}
}
