package process

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sealmark/sealmark/observers"
)

func newLive(t testing.TB, o Options) *Observer {
	t.Helper()
	obs, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { obs.Close() })
	return obs
}

// recordOf returns the record of kind and op about pid.
func recordOf(recs []observers.Record, kind, op string, pid int) (observers.Record, bool) {
	for _, r := range byOp(recs, kind, op) {
		if r.Data["pid"] == strconv.Itoa(pid) {
			return r, true
		}
	}
	return observers.Record{}, false
}

func TestSpawnDuringProbe(t *testing.T) {
	marker := Marker()
	obs := newLive(t, Options{Marker: marker, Interval: 5 * time.Millisecond, Secrets: func(s string) string {
		return strings.ReplaceAll(s, "secret-xyz-123456", "<redacted>")
	}})
	l := startLeader(t, "spawn", marker)
	obs.Track(l.pid())

	obs.Begin("tok-live")
	l.send("go secret-xyz-123456")
	child := l.readPid()
	recs := obs.Collect("tok-live")
	r, ok := recordOf(recs, observers.KindProcess, "spawned", child)
	if !ok {
		t.Fatalf("no spawned record for pid %d in %+v", child, recs)
	}
	if r.Token != "tok-live" || r.Data["attributed"] != "time" || r.Data["ppid"] != strconv.Itoa(l.pid()) {
		t.Errorf("spawned record = %+v, want token tok-live by time, ppid %d", r, l.pid())
	}
	var argv []string
	if err := json.Unmarshal([]byte(r.Data["argv"]), &argv); err != nil || !slices.Contains(argv, "<redacted>") {
		t.Errorf("argv = %s (%v), want the secret masked", r.Data["argv"], err)
	}
	if exe, _ := os.Executable(); r.Data["exe"] != exe {
		t.Errorf("exe = %q, want %q", r.Data["exe"], exe)
	}
	if _, ok := recordOf(recs, observers.KindProcess, "spawned", l.pid()); ok {
		t.Error("the tracked leader was reported as spawned")
	}

	// A spawn that is gone before Collect is seen by the sampler.
	l.send("brief")
	brief := l.readPid()
	if s := l.read(); s != "done" {
		t.Fatalf("leader said %q, want done", s)
	}
	if exists(brief) {
		t.Fatalf("pid %d still exists after its parent waited for it", brief)
	}
	recs = obs.Collect("tok-live")
	if _, ok := recordOf(recs, observers.KindProcess, "spawned", brief); !ok {
		t.Errorf("the short-lived pid %d was not seen by the sampler: %+v", brief, recs)
	}
	if got := obs.PIDs(); !slices.Contains(got, l.pid()) || !slices.Contains(got, child) || slices.Contains(got, brief) {
		t.Errorf("PIDs() = %v, want the leader %d and child %d, not the exited %d", got, l.pid(), child, brief)
	}
}

func TestSweepFindsDaemon(t *testing.T) {
	t.Run("by marker", func(t *testing.T) {
		marker := Marker()
		l := startLeader(t, "daemon", marker)
		daemon := l.readPid()
		other := newLive(t, Options{Marker: Marker()})
		if got := other.Survivors(); len(got) != 0 {
			t.Errorf("an observer with another marker and nothing tracked found %+v", got)
		}
		obs := newLive(t, Options{Marker: marker})
		l.stop() // the group goes; the setsid daemon stays
		checkSweep(t, obs, daemon)
	})
	t.Run("by subreaper adoption", func(t *testing.T) {
		marker := Marker()
		l := startLeader(t, "daemon", marker, clearEnvVar+"=1")
		daemon := l.readPid()
		waitAdopted(t, daemon)
		first := newLive(t, Options{})
		if got := first.Survivors(); len(got) != 0 {
			t.Errorf("an observer with no marker and nothing tracked found %+v", got)
		}
		first.Close() // adoption counts only while one observer is open
		obs := newLive(t, Options{})
		obs.Track(l.pid())
		l.stop()
		checkSweep(t, obs, daemon)
	})
}

// checkSweep checks that obs finds daemon alive, sweeps it with an orphan
// record, and reaps it.
func checkSweep(t *testing.T, obs *Observer, daemon int) {
	t.Helper()
	var found bool
	for _, p := range obs.Survivors() {
		if p.PID == daemon {
			found = true
			if p.SID != daemon || !slices.Contains(p.Argv, "daemon") {
				t.Errorf("survivor = %+v, want its own session and argv holding daemon", p)
			}
		}
	}
	if !found {
		t.Fatalf("Survivors() = %+v, want daemon %d", obs.Survivors(), daemon)
	}
	recs := obs.Sweep(2 * time.Second)
	r, ok := recordOf(recs, observers.KindProcess, "orphan", daemon)
	if !ok {
		t.Fatalf("Sweep records = %+v, want an orphan record for %d", recs, daemon)
	}
	if r.Data["stopped_by"] != "SIGTERM" || !strings.Contains(r.Summary, "still running") {
		t.Errorf("orphan record = %+v, want stopped_by SIGTERM", r)
	}
	if exists(daemon) {
		t.Errorf("pid %d still in /proc after Sweep: not killed or not reaped", daemon)
	}
	if got := obs.Survivors(); len(got) != 0 {
		t.Errorf("Survivors() after Sweep = %+v, want none", got)
	}
}

// waitAdopted waits until pid's parent is this process.
func waitAdopted(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if s, ok := parseStat(b); ok && s.ppid == os.Getpid() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("pid %d was not adopted by the test process", pid)
}

func TestSweepEscalatesAndLeavesTheLeaderToOsExec(t *testing.T) {
	marker := Marker()
	l := startLeader(t, "stubborn", marker)
	if s := l.read(); s != "ready" {
		t.Fatalf("leader said %q, want ready", s)
	}
	obs := newLive(t, Options{Marker: marker})
	obs.Track(l.pid())
	recs := obs.Sweep(50 * time.Millisecond)
	r, ok := recordOf(recs, observers.KindProcess, "orphan", l.pid())
	if !ok || r.Data["stopped_by"] != "SIGKILL" {
		t.Fatalf("Sweep records = %+v, want the leader stopped by SIGKILL", recs)
	}
	err := l.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("leader Wait() = %v, want killed by SIGKILL (Sweep must not reap os/exec's child)", err)
	}
}

func TestExecLogLive(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(bin, "sm-echo")); err != nil {
		t.Skipf("cannot make a symlink: %v", err)
	}
	obs := newLive(t, Options{Bin: bin})
	obs.Begin("tok-e1")
	cmd := exec.Command(filepath.Join(bin, "sm-echo"), "x", "tok-e1")
	cmd.Env = []string{}
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("sm-echo: %v (%s)", err, out)
	}
	recs := obs.Collect("tok-e1")
	r, ok := recordOf(recs, observers.KindProcess, "exec", cmd.Process.Pid)
	if !ok {
		t.Fatalf("no exec record for pid %d in %+v", cmd.Process.Pid, recs)
	}
	if r.Token != "tok-e1" || r.Data["attributed"] != "token" || r.Data["prog"] != "sm-echo" {
		t.Errorf("exec record = %+v, want sm-echo attributed to tok-e1 by token", r)
	}
}

func TestNoProcessTracked(t *testing.T) {
	obs := newLive(t, Options{})
	obs.Begin("t")
	if got := obs.Collect("t"); len(got) != 0 {
		t.Errorf("Collect with nothing tracked = %+v, want nothing (never the harness's own children)", got)
	}
	if got := obs.Sweep(0); len(got) != 0 {
		t.Errorf("Sweep with nothing tracked = %+v", got)
	}
}

// BenchmarkProcessPerProbe measures Begin and Collect on a tree of three
// processes.
func BenchmarkProcessPerProbe(b *testing.B) {
	marker := Marker()
	obs := newLive(b, Options{Marker: marker})
	l := startLeader(b, "tree", marker)
	if s := l.read(); s != "ready" {
		b.Fatalf("leader said %q, want ready", s)
	}
	obs.Track(l.pid())
	obs.Begin("warm-up")
	if n := len(obs.PIDs()); n != 3 {
		b.Fatalf("tree has %d processes, want 3", n)
	}
	for i := 0; b.Loop(); i++ {
		tok := "tok-" + strconv.Itoa(i)
		obs.Begin(tok)
		obs.Collect(tok)
	}
}
