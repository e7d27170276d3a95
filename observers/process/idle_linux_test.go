package process

import (
	"context"
	"testing"
	"time"
)

// An idle tree is found idle long before the ceiling: a leader waiting for
// its stdin, its child asleep on a minute's timer.
func TestIdle(t *testing.T) {
	marker := Marker()
	obs := newLive(t, Options{Marker: marker})
	l := startLeader(t, "spawn", marker)
	obs.Track(l.pid())
	l.send("go")
	l.readPid()
	if !obs.Idle(context.Background(), 10*time.Second) {
		t.Errorf("Idle(10s) of a leader reading its stdin and a child asleep for a minute = false, want true")
	}
}

// A tree that wakes every 30 ms is never idle: Idle waits the whole
// ceiling, as the fixed wait it replaces did.
func TestIdleNotWhileTicking(t *testing.T) {
	marker := Marker()
	obs := newLive(t, Options{Marker: marker})
	l := startLeader(t, "ticking", marker)
	obs.Track(l.pid())
	if got := l.read(); got != "ready" {
		t.Fatalf("ticking: got %q, want ready", got)
	}
	if obs.Idle(context.Background(), 500*time.Millisecond) {
		t.Errorf("Idle(500ms) with a process waking every 30 ms = true, want false")
	}
}

// A timer due within the ceiling keeps the tree busy until it fired: a
// child asleep for 300 ms has exited, and the leader reaped it, when Idle
// returns.
func TestIdleWaitsForATimerDueWithinTheCeiling(t *testing.T) {
	marker := Marker()
	obs := newLive(t, Options{Marker: marker})
	l := startLeader(t, "spawn", marker)
	obs.Track(l.pid())
	l.send("brief") // a child sleeping 300 ms, waited for
	child := l.readPid()
	if !obs.Idle(context.Background(), 10*time.Second) {
		t.Fatalf("Idle(10s) = false, want true once the child exited")
	}
	if pids := obs.PIDs(); len(pids) != 1 || pids[0] != l.pid() {
		t.Errorf("when Idle returned the tree was %v, want the leader %d alone (child %d exited)", pids, l.pid(), child)
	}
	if got := l.read(); got != "done" {
		t.Errorf("got %q, want done", got)
	}
}

// A cancelled context ends the wait, not idle.
func TestIdleEndsWithItsContext(t *testing.T) {
	marker := Marker()
	obs := newLive(t, Options{Marker: marker})
	l := startLeader(t, "ticking", marker)
	obs.Track(l.pid())
	l.read()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if obs.Idle(ctx, time.Minute) {
		t.Errorf("Idle with a cancelled context = true, want false")
	}
}

func TestUntimedWait(t *testing.T) {
	if _, ok := waits()[281]; !ok {
		t.Skip("the table below is amd64's")
	}
	for _, c := range []struct {
		line string
		want bool
	}{
		{"running", false},
		{"-1 0x7ffd 0x4011", false},
		{"281 0xe 0x7ffd 0x400 0xffffffff 0x0 0x8 0x7ffd 0x4011", true},    // epoll_pwait, no timeout
		{"281 0xe 0x7ffd 0x400 0x1de3 0x0 0x8 0x7ffd 0x4011", true},        // 7651 ms > 1 s
		{"281 0xe 0x7ffd 0x400 0x64 0x0 0x8 0x7ffd 0x4011", false},         // 100 ms
		{"202 0x3641 0x189 0x0 0x0 0x0 0xffffffff 0x7fa6 0x4011", true},    // futex, no timeout
		{"202 0x3641 0x80 0x0 0x7ffd 0x0 0xffffffff 0x7fa6 0x4011", false}, // futex, timed, memory unread
		{"202 0x3641 0x89 0x0 0x7ffd 0x0 0xffffffff 0x7fa6 0x4011", false}, // FUTEX_WAIT_BITSET: absolute
		{"35 0x7ffd 0x0 0x0 0x0 0x0 0x0 0x7ffd 0x4011", false},             // nanosleep, memory unread
		{"42 0x3 0x7ffd 0x10 0x0 0x0 0x0 0x7ffd 0x4011", false},            // connect, held by a notification
		{"0 0x0 0x7ffd 0x1000 0x0 0x0 0x0 0x7ffd 0x4011", true},            // read
	} {
		if got := untimedWait(c.line, time.Second, nil); got != c.want {
			t.Errorf("untimedWait(%q, 1s) = %v, want %v", c.line, got, c.want)
		}
	}
}
