package launch_test

import (
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/launch"
)

func skipWithoutProcessGroups(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("process groups and SIGTERM are Unix only")
	}
}

func TestStopExitsOnStdinClose(t *testing.T) {
	p := start(t, "echo", launch.Spec{})
	if p.ExitStatus() != "" {
		t.Errorf("ExitStatus() = %q while running, want empty", p.ExitStatus())
	}
	var r launch.StopReport
	within(t, "Stop", func() { r = p.Stop(10*time.Second, 10*time.Second) })
	if !r.ExitedOnStdinClose || len(r.Signalled) != 0 || len(r.Leftover) != 0 || r.Status != "exit status 0" {
		t.Errorf("Stop() = %+v, want exit on stdin close, no signals, no leftover, exit status 0", r)
	}
	if !p.WaitExit(0) {
		t.Error("WaitExit(0) = false after Stop, want true")
	}
	if again := p.Stop(0, 0); !again.ExitedOnStdinClose || again.Status != r.Status {
		t.Errorf("second Stop() = %+v, want the first report %+v", again, r)
	}
	if _, err := io.ReadAll(p.Messages()); err != nil {
		t.Errorf("reading Messages after Stop: %v, want EOF", err)
	}
}

func TestStopKillsAServerThatIgnoresSIGTERM(t *testing.T) {
	skipWithoutProcessGroups(t)
	p := start(t, "stubborn", launch.Spec{})
	waitFrame(t, p, "ready") // SIGTERM is ignored from here on
	if p.WaitExit(10 * time.Millisecond) {
		t.Fatal("the server exited by itself")
	}
	var r launch.StopReport
	within(t, "Stop", func() { r = p.Stop(50*time.Millisecond, 50*time.Millisecond) })
	if r.ExitedOnStdinClose || !slices.Equal(r.Signalled, []string{"SIGTERM", "SIGKILL"}) || r.Status != "signal: killed" {
		t.Errorf("Stop() = %+v, want Signalled [SIGTERM SIGKILL] and status %q", r, "signal: killed")
	}
}

func TestStopDoesNotHangOnAServerThatNeverReads(t *testing.T) {
	skipWithoutProcessGroups(t)
	p := start(t, "deaf", launch.Spec{})
	waitFrame(t, p, "ready")

	// Far more than a pipe holds: these writes block until stdin closes.
	raw := make(chan error, 1)
	go func() { raw <- p.WriteRaw(make([]byte, 4<<20)) }()
	framed := make(chan error, 1)
	go func() {
		_, err := p.Input().Write([]byte(`{"jsonrpc":"2.0","method":"x"}` + "\n"))
		framed <- err
	}()

	var r launch.StopReport
	within(t, "Stop", func() { r = p.Stop(50*time.Millisecond, 10*time.Second) })
	if !slices.Equal(r.Signalled, []string{"SIGTERM"}) || r.Status != "signal: terminated" {
		t.Errorf("Stop() = %+v, want Signalled [SIGTERM] and status %q", r, "signal: terminated")
	}
	within(t, "the blocked WriteRaw", func() {
		if err := <-raw; err == nil {
			t.Error("blocked WriteRaw returned nil after stdin closed, want an error")
		}
	})
	// This one may have gone first and fit in the pipe; it must not hang.
	within(t, "the waiting Input().Write", func() { <-framed })
	if err := p.WriteRaw([]byte("late\n")); !errors.Is(err, launch.ErrStdinClosed) {
		t.Errorf("WriteRaw after Stop = %v, want ErrStdinClosed", err)
	}
	if err := p.CloseStdin(); err != nil {
		t.Errorf("second CloseStdin() = %v, want nil", err)
	}
}

func TestStopKillsAndListsWhatOutlivesTheLeader(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("leftover pids are listed on Linux only")
	}
	p := start(t, "grandchild", launch.Spec{})
	msgs := readMessages(p)
	var info struct{ Grandchild int }
	if err := json.Unmarshal(waitFrame(t, p, "grandchild").Data, &info); err != nil || info.Grandchild == 0 {
		t.Fatalf("grandchild pid: %v", err)
	}
	if !running(info.Grandchild) {
		t.Fatalf("grandchild %d is not running before Stop", info.Grandchild)
	}

	var r launch.StopReport
	within(t, "Stop", func() { r = p.Stop(10*time.Second, 10*time.Second) })
	if !r.ExitedOnStdinClose || len(r.Signalled) != 0 || r.Status != "exit status 0" {
		t.Errorf("Stop() = %+v, want the leader to have exited by itself with status 0", r)
	}
	if !slices.Contains(r.Leftover, info.Grandchild) {
		t.Errorf("Leftover = %v, want it to contain the grandchild %d", r.Leftover, info.Grandchild)
	}
	if running(info.Grandchild) {
		t.Errorf("grandchild %d still runs after Stop", info.Grandchild)
	}
	msgs.all(t) // stdout ends although the grandchild held it
}

func TestStopAndKillTogether(t *testing.T) {
	skipWithoutProcessGroups(t)
	p := start(t, "stubborn", launch.Spec{})
	waitFrame(t, p, "ready")
	var wg sync.WaitGroup
	reports := make([]launch.StopReport, 2)
	within(t, "Stop and Kill", func() {
		wg.Go(p.Kill)
		wg.Go(func() { reports[0] = p.Stop(10*time.Second, 10*time.Second) })
		wg.Go(func() { reports[1] = p.Stop(0, 0) })
		wg.Go(p.Kill)
		wg.Wait()
	})
	if reports[0].Status != "signal: killed" || reports[1].Status != reports[0].Status {
		t.Errorf("reports = %+v, want the same report twice, status %q", reports, "signal: killed")
	}
	p.Kill() // the group is gone: nothing to signal, no panic
}

func TestStopDoesNotWaitForAStalledConsumer(t *testing.T) {
	p := start(t, "flood", launch.Spec{})
	waitFrame(t, p, `"i":0,`) // Messages is never read: the framer is stuck on this one
	var r launch.StopReport
	within(t, "Stop", func() { r = p.Stop(10*time.Second, 10*time.Second) })
	if !r.ExitedOnStdinClose {
		t.Errorf("Stop() = %+v, want the server to finish writing and exit on stdin close", r)
	}
	if got := p.FrameCount(); got != 5000 {
		t.Errorf("FrameCount() = %d, want all 5000 lines recorded", got)
	}
	if _, err := io.ReadAll(p.Messages()); err != nil {
		t.Errorf("reading Messages after Stop: %v, want EOF", err)
	}
}

func TestStderrGoesToTheBoundedLog(t *testing.T) {
	p := start(t, "stderr", launch.Spec{LogBytes: 64 << 10})
	r := p.Stop(10*time.Second, 10*time.Second)
	if r.Status != "exit status 0" {
		t.Fatalf("Stop() = %+v, want exit status 0", r)
	}
	log := p.Log()
	if got, want := log.Total(), int64(100000*19); got != want {
		t.Errorf("Log().Total() = %d, want %d", got, want)
	}
	if got, want := log.Lost(), int64(100000*19-64<<10); got != want {
		t.Errorf("Log().Lost() = %d, want %d", got, want)
	}
	if tail := log.Tail(40); tail != "stderr line 099998\nstderr line 099999\n" {
		t.Errorf("Log().Tail(40) = %q, want the last two lines", tail)
	}
	if got := p.FrameCount(); got != 0 {
		t.Errorf("FrameCount() = %d, want 0: stderr is not stdout", got)
	}
}

func TestStartRefusesARelativePath(t *testing.T) {
	if _, err := launch.Start(launch.Spec{Path: "mcp-server"}); err == nil || !strings.Contains(err.Error(), "not absolute") {
		t.Errorf("Start(relative path) = %v, want a not-absolute error", err)
	}
}

func TestStartReportsAMissingProgram(t *testing.T) {
	path := t.TempDir() + "/no-such-server"
	if p, err := launch.Start(launch.Spec{Path: path}); err == nil {
		p.Kill()
		t.Errorf("Start(%s) succeeded, want an error", path)
	}
}

func TestStopLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	p := start(t, "echo", launch.Spec{})
	if err := p.WriteRaw([]byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	waitFrame(t, p, "{}") // Messages is never read: the framer blocks forwarding it
	p.Stop(10*time.Second, 10*time.Second)

	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Stop, want at most the %d from before Start", n, before)
	}
}

// A harness stopped by a signal runs package cleanup and exits: by the
// time the cleanup returns, no process of the group may still be alive
// (the leader reaped, the grandchild gone), or one outlives the harness.
func TestCleanupKillsAndWaitsForTheGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("group members are listed on Linux only")
	}
	before := cleanup.Pending()
	p := start(t, "grandchild", launch.Spec{})
	if got := cleanup.Pending(); got != before+1 {
		t.Fatalf("cleanup.Pending() = %d after Start, want %d: a start must be registered before Start returns", got, before+1)
	}
	var info struct{ Grandchild int }
	if err := json.Unmarshal(waitFrame(t, p, "grandchild").Data, &info); err != nil || info.Grandchild == 0 {
		t.Fatalf("grandchild pid: %v", err)
	}
	within(t, "cleanup.Run", cleanup.Run)
	select {
	case <-p.Done():
	default:
		t.Error("the leader was not reaped when the cleanup returned")
	}
	if running(info.Grandchild) {
		t.Errorf("grandchild %d still runs after the cleanup returned", info.Grandchild)
	}
	p.Stop(0, 0)
}

func TestStopUnregistersFromCleanup(t *testing.T) {
	before := cleanup.Pending()
	p := start(t, "echo", launch.Spec{})
	p.Stop(time.Second, time.Second)
	if got := cleanup.Pending(); got != before {
		t.Errorf("cleanup.Pending() = %d after Stop, want %d", got, before)
	}
}
