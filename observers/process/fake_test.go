package process

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/observers"
)

// fakeProc is a /proc tree in a temp dir.
type fakeProc struct {
	t    *testing.T
	root string
}

func newFakeProc(t *testing.T) *fakeProc {
	f := &fakeProc{t: t, root: t.TempDir()}
	f.add(1, 0, 1, 1, "S", "init", "/sbin/init")
	f.add(100, 1, 100, 100, "S", "harness", "harness") // self
	return f
}

// add writes /proc/PID/{stat,cmdline}; argv "" leaves cmdline out; argv
// "\x00" writes an empty one.
func (f *fakeProc) add(pid, ppid, pgid, sid int, state, comm, argv string) {
	f.t.Helper()
	dir := filepath.Join(f.root, fmt.Sprint(pid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	line := fmt.Sprintf("%d (%s) %s %d %d %d 0 0 0 0 0 0 0 0 0 0 0 0 1 0 %d 1000 2000\n", pid, comm, state, ppid, pgid, sid, 1000+pid)
	f.write(pid, "stat", line)
	switch argv {
	case "":
	case "\x00":
		f.write(pid, "cmdline", "")
	default:
		f.write(pid, "cmdline", strings.ReplaceAll(argv, " ", "\x00")+"\x00")
	}
}

func (f *fakeProc) write(pid int, name, content string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.root, fmt.Sprint(pid), name), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeProc) remove(pid int) {
	if err := os.RemoveAll(filepath.Join(f.root, fmt.Sprint(pid))); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeProc) observer(o Options) *Observer {
	f.t.Helper()
	obs, err := newObserver(o, f.root, 100)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { obs.Close() })
	return obs
}

// byOp returns the records of kind with Data["op"] == op.
func byOp(recs []observers.Record, kind, op string) []observers.Record {
	var out []observers.Record
	for _, r := range recs {
		if r.Kind == kind && r.Data["op"] == op {
			out = append(out, r)
		}
	}
	return out
}

func TestFakeSpawnedExecveAndLoss(t *testing.T) {
	f := newFakeProc(t)
	f.add(200, 100, 200, 100, "S", "server", "node server.js")
	obs := f.observer(Options{Interval: time.Hour, Secrets: func(s string) string {
		return strings.ReplaceAll(s, "hunter2-secret", "<redacted>")
	}})
	obs.Track(200)

	obs.Begin("tok-1")
	f.add(201, 200, 200, 100, "S", "curl", "curl -u admin:hunter2-secret http://127.0.0.1/")
	f.add(202, 200, 200, 100, "S", "gone", "")       // no cmdline: exited meanwhile
	f.add(203, 200, 200, 100, "Z", "zomb", "\x00")   // a zombie
	f.add(204, 1, 300, 300, "S", "unrelated", "x y") // not the run's
	recs := obs.Collect("tok-1")

	spawned := byOp(recs, observers.KindProcess, "spawned")
	if len(spawned) != 1 {
		t.Fatalf("spawned records = %+v, want exactly pid 201", spawned)
	}
	r := spawned[0]
	if r.Token != "tok-1" || r.Data["attributed"] != "time" || r.Observer != "process" {
		t.Errorf("spawned record Token=%q attributed=%q observer=%q, want tok-1, time, process", r.Token, r.Data["attributed"], r.Observer)
	}
	if r.Data["pid"] != "201" || r.Data["ppid"] != "200" || r.Data["comm"] != "curl" {
		t.Errorf("spawned Data = %v", r.Data)
	}
	var argv []string
	if err := json.Unmarshal([]byte(r.Data["argv"]), &argv); err != nil || len(argv) != 4 || argv[2] != "admin:<redacted>" {
		t.Errorf("spawned argv = %s (%v), want the secret masked", r.Data["argv"], err)
	}
	for _, s := range []string{r.Summary, r.Data["argv"]} {
		if strings.Contains(s, "hunter2") {
			t.Errorf("the secret reached the record: %q", s)
		}
	}

	losses := byOp(recs, observers.KindLoss, "spawned")
	if len(losses) != 2 {
		t.Fatalf("loss records = %+v, want pids 202 and 203", losses)
	}
	for _, l := range losses {
		if !strings.Contains(l.Summary, "exited before its argv could be read") || l.Token != "tok-1" {
			t.Errorf("loss record %q token %q", l.Summary, l.Token)
		}
	}

	if again := obs.Collect("tok-1"); len(again) != 0 {
		t.Errorf("second Collect returned %d records, want none: %+v", len(again), again)
	}

	// 201 execs another program: its comm changes.
	f.add(201, 200, 200, 100, "S", "sh", "sh -c id")
	recs = obs.Collect("tok-1")
	ex := byOp(recs, observers.KindProcess, "execve")
	if len(ex) != 1 || ex[0].Data["was"] != "curl" || ex[0].Data["argv"] != `["sh","-c","id"]` {
		t.Errorf("execve records = %+v, want one, was curl, argv sh -c id", ex)
	}

	// A process that exits is forgotten; its pid reused is a new process.
	f.remove(201)
	obs.Collect("tok-1")
	f.add(201, 200, 200, 100, "S", "sh", "sh -c id")
	line := fmt.Sprintf("201 (sh) S 200 200 100 0 0 0 0 0 0 0 0 0 0 0 0 1 0 %d 1000 2000\n", 999999)
	f.write(201, "stat", line)
	if got := byOp(obs.Collect("tok-1"), observers.KindProcess, "spawned"); len(got) != 1 {
		t.Errorf("a reused pid gave %d spawned records, want 1", len(got))
	}
}

func TestFakeAttribution(t *testing.T) {
	f := newFakeProc(t)
	f.add(200, 100, 200, 100, "S", "server", "server")
	obs := f.observer(Options{Interval: time.Hour})
	obs.Track(200)

	f.add(201, 200, 200, 100, "S", "early", "early") // before any probe
	obs.Begin("tok-a")
	obs.Begin("tok-b")
	f.add(202, 200, 200, 100, "S", "sm-canary", "sm-canary tok-a") // carries the older token
	f.add(203, 200, 200, 100, "S", "ls", "ls")

	b := obs.Collect("tok-b")
	if len(b) != 1 || b[0].Data["pid"] != "203" || b[0].Data["attributed"] != "time" {
		t.Errorf("Collect(tok-b) = %+v, want pid 203 by time", b)
	}
	a := obs.Collect("tok-a")
	if len(a) != 1 || a[0].Data["pid"] != "202" || a[0].Data["attributed"] != "token" {
		t.Errorf("Collect(tok-a) = %+v, want pid 202 by token", a)
	}
	rest := obs.Close()
	if len(rest) != 1 || rest[0].Data["pid"] != "201" || rest[0].Token != "" {
		t.Errorf("Close() = %+v, want pid 201 without a token", rest)
	}
	if _, ok := rest[0].Data["attributed"]; ok {
		t.Errorf("a record seen outside any probe says attributed=%q", rest[0].Data["attributed"])
	}
	if again := obs.Close(); again != nil {
		t.Errorf("second Close() = %+v, want nil", again)
	}
}

func TestFakeDroppedRecords(t *testing.T) {
	f := newFakeProc(t)
	f.add(200, 100, 200, 100, "S", "server", "server")
	obs := f.observer(Options{Interval: time.Hour})
	obs.Track(200)
	obs.Begin("tok")
	obs.mu.Lock()
	for i := 0; i < maxPending+5; i++ {
		obs.lossf("filler %d", i)
	}
	obs.mu.Unlock()
	recs := obs.Collect("tok")
	if len(recs) != maxPending+1 {
		t.Fatalf("Collect returned %d records, want %d and one loss record", len(recs), maxPending+1)
	}
	last := recs[len(recs)-1]
	if last.Kind != observers.KindLoss || last.Data[observers.KeyCount] != "5" || last.Data[observers.KeyReason] != "records" {
		t.Errorf("last record = %+v, want a loss record for 5 dropped", last)
	}
}

func TestFakeExecLog(t *testing.T) {
	f := newFakeProc(t)
	bin := t.TempDir()
	obs := f.observer(Options{Bin: bin, Interval: time.Hour, Secrets: func(s string) string {
		return strings.ReplaceAll(s, "s3cret-value", "<redacted>")
	}})
	appendLog := func(lines ...string) {
		t.Helper()
		fh, err := os.OpenFile(filepath.Join(bin, smbin.ExecLog), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		for _, l := range lines {
			fmt.Fprintln(fh, l)
		}
	}
	entry := func(prog string, pid int, argv ...string) string {
		b, _ := json.Marshal(smbin.Exec{Prog: prog, Argv: argv, PID: pid, PPID: 1, Cwd: "/w", Time: time.Unix(1, 0)})
		return string(b)
	}

	obs.Begin("tok-1")
	if got := obs.Collect("tok-1"); len(got) != 0 {
		t.Fatalf("no exec log yet, Collect = %+v", got)
	}
	appendLog(entry("sm-canary", 11, "sm-canary", "tok-1"), entry("sm-echo", 12, "sm-echo", "s3cret-value"), "not json")
	recs := obs.Collect("tok-1")
	execs := byOp(recs, observers.KindProcess, "exec")
	if len(execs) != 2 {
		t.Fatalf("exec records = %+v, want 2", recs)
	}
	if execs[0].Data["prog"] != "sm-canary" || execs[0].Data["pid"] != "11" || execs[0].Data["attributed"] != "token" {
		t.Errorf("first exec record = %+v, want sm-canary pid 11 by token", execs[0])
	}
	if execs[1].Data["attributed"] != "time" || execs[1].Data["argv"] != `["sm-echo","<redacted>"]` {
		t.Errorf("second exec record = %+v, want by time with the secret masked", execs[1])
	}
	if l := byOp(recs, observers.KindLoss, "loss"); len(l) != 1 || !strings.Contains(l[0].Summary, "1 malformed") {
		t.Errorf("loss records = %+v, want one for the malformed line", l)
	}

	appendLog(entry("sm-sleep", 13, "sm-sleep", "1"))
	recs = obs.Collect("tok-1")
	if execs := byOp(recs, observers.KindProcess, "exec"); len(execs) != 1 || execs[0].Data["pid"] != "13" {
		t.Errorf("after one more line, exec records = %+v, want only pid 13", recs)
	}
}

// TestFakeForkBeforeExec: a child first seen running its parent's program
// with its parent's arguments (between fork and exec) is not recorded as
// that program: once it exec'ed it is recorded with what it runs, under
// the probe open at the fork; a fork that never execs is recorded after
// forkGrace; one gone meanwhile not at all.
func TestFakeForkBeforeExec(t *testing.T) {
	f := newFakeProc(t)
	f.add(200, 100, 200, 100, "S", "server", "server --flag")
	obs := f.observer(Options{Interval: time.Hour})
	obs.Track(200)

	obs.Begin("tok-1")
	f.add(201, 200, 200, 100, "S", "server", "server --flag") // forked, not exec'ed yet
	f.add(202, 200, 200, 100, "S", "server", "server --flag") // a worker that never execs
	f.add(203, 200, 200, 100, "S", "server", "server --flag") // exits before exec
	if got := byOp(obs.Collect("tok-1"), observers.KindProcess, "spawned"); len(got) != 0 {
		t.Fatalf("a fork before its exec was recorded: %+v", got)
	}
	f.add(201, 200, 200, 100, "S", "sm-canary", "sm-canary tok-1")
	f.remove(203)
	obs.Begin("tok-2")
	recs := byOp(obs.Collect("tok-1"), observers.KindProcess, "spawned")
	if len(recs) != 1 || recs[0].Data["pid"] != "201" || recs[0].Data["argv"] != `["sm-canary","tok-1"]` || recs[0].Token != "tok-1" {
		t.Fatalf("after the exec: %+v, want pid 201 running sm-canary under tok-1", recs)
	}
	time.Sleep(forkGrace + 10*time.Millisecond)
	recs = byOp(obs.Collect("tok-1"), observers.KindProcess, "spawned")
	if len(recs) != 1 || recs[0].Data["pid"] != "202" || recs[0].Data["argv"] != `["server","--flag"]` {
		t.Fatalf("after forkGrace: %+v, want the worker 202 as it runs", recs)
	}
	for _, r := range obs.Close() {
		if r.Data["pid"] == "203" {
			t.Errorf("a fork gone before its exec was recorded: %+v", r)
		}
	}
}

// TestFakeExecInFlight: a process first seen alive with an empty command
// line is in the middle of an exec, not gone: it is recorded with what it
// runs once the exec is done, under the probe open when it was first seen;
// one that then exits is a loss, said as one.
func TestFakeExecInFlight(t *testing.T) {
	f := newFakeProc(t)
	f.add(200, 100, 200, 100, "S", "server", "node server.js")
	obs := f.observer(Options{Interval: time.Hour})
	obs.Track(200)

	obs.Begin("tok-1")
	f.add(210, 200, 200, 100, "R", "server", "\x00") // exec'ing: no argv yet
	f.add(211, 200, 200, 100, "R", "server", "\x00") // exec'ing, then gone
	if recs := obs.Collect("tok-1"); len(recs) != 0 {
		t.Fatalf("records while the execs are in flight: %+v", recs)
	}

	f.add(210, 200, 200, 100, "R", "sm-echo", "sm-echo tok-1-x")
	f.remove(211)
	obs.Begin("tok-2")
	recs := obs.Collect("tok-1")
	r, ok := recordOf(recs, observers.KindProcess, "spawned", 210)
	if !ok {
		t.Fatalf("no spawned record for the finished exec: %+v", recs)
	}
	if r.Token != "tok-1" || r.Data["argv"] != `["sm-echo","tok-1-x"]` {
		t.Errorf("spawned record token %q argv %s, want tok-1 and the new program's argv", r.Token, r.Data["argv"])
	}
	losses := byOp(recs, observers.KindLoss, "spawned")
	if len(losses) != 1 || losses[0].Data["pid"] != "211" || losses[0].Token != "tok-1" {
		t.Errorf("loss records = %+v, want one for pid 211 under tok-1", losses)
	}
}
