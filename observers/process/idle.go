package process

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// idlePoll is how often Idle reads the tree.
const idlePoll = 5 * time.Millisecond

// Idle waits until the run's process tree is idle, and reports whether it
// was before ceiling passed (false: ceiling passed, ctx ended, or the tree
// cannot be read; the caller has then waited as long as it would have
// without the barrier). The tree is idle when two reads idlePoll apart
// find the same processes and threads, none of them run in between (their
// CPU time, /proc/PID/task/TID/schedstat, is unchanged), and every one is
// asleep in a wait that ends only on an event from outside (a read, an
// accept, a futex or epoll wait without a timeout) or on a timer longer
// than ceiling (an epoll, poll, futex or sleep timeout, as the system call
// was given it). A process starting or exiting, a thread running, a
// timer within ceiling, an absolute timeout, a wait the harness is
// answering (a seccomp notification holds a connect or an open in its
// call) or a system call Idle does not know keep it waiting, as does a
// tree of no process (a server the run did not start): what the server
// has still to do within ceiling shows before Idle returns.
//
// What Idle cannot see is a timer that is not the wait's own timeout: a
// timeout armed before the wait began in a thread that has not run since
// (the wait's timeout is the one it was entered with), a timerfd watched
// by an untimed epoll or read, an alarm or interval timer that a signal
// ends a pause with. A server that schedules work so loses the barrier
// no more than it lost the fixed wait it replaces, whose ceiling any
// delay longer than it also passed.
func (o *Observer) Idle(ctx context.Context, ceiling time.Duration) bool {
	deadline := time.Now().Add(ceiling)
	var last map[int]uint64 // tid → CPU ns, for the tree's threads
	for {
		snap, ok := o.idleSnapshot(ceiling)
		switch {
		case !ok || len(snap) == 0:
			last = nil // busy, or no process to watch (a server the run did not start)
		case last != nil && sameRun(last, snap):
			return true
		default:
			last = snap
		}
		wait := min(idlePoll, time.Until(deadline))
		if wait <= 0 {
			return false
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
}

// idleSnapshot reads the CPU time of every thread of the run's processes;
// ok is false when one of them is not asleep in a wait that ends on an
// outside event or on a timer longer than horizon (or the tree cannot be
// read).
func (o *Observer) idleSnapshot(horizon time.Duration) (map[int]uint64, bool) {
	o.mu.Lock()
	procs, members, err := o.members()
	o.mu.Unlock()
	if err != nil {
		return nil, false
	}
	snap := map[int]uint64{}
	for pid := range members {
		if s := procs[pid]; !s.alive() || o.isInfra(s) {
			continue // the harness's own shim waits on timers of its own
		}
		dir := filepath.Join(o.root, strconv.Itoa(pid), "task")
		tids, err := os.ReadDir(dir)
		if err != nil {
			return nil, false
		}
		for _, t := range tids {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			cpu, ok := taskIdle(filepath.Join(dir, t.Name()), horizon)
			if !ok {
				return nil, false
			}
			snap[tid] = cpu
		}
	}
	return snap, true
}

// sameRun reports whether two snapshots hold the same threads with the
// same CPU time.
func sameRun(a, b map[int]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for tid, cpu := range a {
		if c, ok := b[tid]; !ok || c != cpu {
			return false
		}
	}
	return true
}

// taskIdle reads one thread: its CPU time in ns, and whether it is asleep
// in an untimed wait (or one whose timer is longer than horizon). A thread
// that exited between the listing and the read is idle.
func taskIdle(dir string, horizon time.Duration) (uint64, bool) {
	st, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return 0, os.IsNotExist(err)
	}
	s, ok := parseStat(st)
	if !ok {
		return 0, false
	}
	switch s.state {
	case 'Z', 'X', 'x', 'T', 't':
		return 0, true // dead or stopped: it does nothing until woken from outside
	case 'S':
	default:
		return 0, false // running, or in an uninterruptible wait (I/O)
	}
	sched, err := os.ReadFile(filepath.Join(dir, "schedstat"))
	if err != nil {
		return 0, os.IsNotExist(err)
	}
	cpu, err := strconv.ParseUint(strings.Fields(string(sched) + " x")[0], 10, 64)
	if err != nil {
		return 0, false
	}
	sc, err := os.ReadFile(filepath.Join(dir, "syscall"))
	if err != nil {
		return 0, os.IsNotExist(err)
	}
	return cpu, untimedWait(string(sc), horizon, memReader(filepath.Join(dir, "mem")))
}

// untimedWait reads a /proc/PID/task/TID/syscall line ("NR arg1 ... arg6
// sp pc") and reports whether the thread waits for an outside event only,
// or for a timer longer than horizon. A timeout given by pointer is read
// through mem (nil: such a wait counts as due).
func untimedWait(line string, horizon time.Duration, mem func(addr uint64, n int) []byte) bool {
	f := strings.Fields(line)
	if len(f) < 7 {
		return false // "running", or "-1 sp pc": not in a system call
	}
	nr, err := strconv.Atoi(f[0])
	if err != nil {
		return false
	}
	arg := func(i int) uint64 {
		v, err := strconv.ParseUint(strings.TrimPrefix(f[i], "0x"), 16, 64)
		if err != nil {
			return 1 // unreadable: as a timeout given
		}
		return v
	}
	w, ok := waits()[nr]
	if !ok {
		return false
	}
	if w.timeout == 0 {
		return true
	}
	v := arg(w.timeout)
	switch {
	case w.millis:
		ms := int32(uint32(v))
		return ms < 0 || time.Duration(ms)*time.Millisecond > horizon
	case v == 0:
		return true // no timeout
	case w.op > 0 && arg(w.op)&0x7f != 0:
		return false // a futex operation other than FUTEX_WAIT: its timeout may be absolute
	case w.op < 0 && arg(-w.op)&1 != 0:
		return false // clock_nanosleep with TIMER_ABSTIME
	case mem == nil:
		return false
	}
	b := mem(v, 16)
	if len(b) < 16 {
		return false
	}
	sec := int64(binary.NativeEndian.Uint64(b))
	frac := int64(binary.NativeEndian.Uint64(b[8:]))
	unit := time.Nanosecond
	if w.micros {
		unit = time.Microsecond
	}
	if sec < 0 || frac < 0 {
		return false
	}
	if sec > int64(time.Duration(1<<62)/time.Second) {
		return true // longer than any ceiling
	}
	return time.Duration(sec)*time.Second+time.Duration(frac)*unit > horizon
}

// memReader reads n bytes of a thread's memory at addr through path (its
// /proc/PID/task/TID/mem), nil when it cannot.
func memReader(path string) func(addr uint64, n int) []byte {
	return func(addr uint64, n int) []byte {
		if addr > 1<<62 {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		b := make([]byte, n)
		if _, err := f.ReadAt(b, int64(addr)); err != nil {
			return nil
		}
		return b
	}
}

// wait is a blocking system call the tree may sleep in: timeout is the
// argument (1-based) holding its timeout, 0 for none; millis is true when
// that argument is a count of milliseconds (negative: none) rather than a
// pointer.
//
// A timeout by pointer is a relative struct timespec (a struct timeval
// when micros); op names the argument whose value must show it relative:
// a futex's operation (FUTEX_WAIT, 0, with any flag but the clock's), or,
// negative, clock_nanosleep's flags (no TIMER_ABSTIME).
type wait struct {
	timeout int
	millis  bool
	micros  bool
	op      int
}

// waits are the blocking system calls of the machine's architecture by
// number; nil elsewhere (Idle then never finds the tree idle).
func waits() map[int]wait {
	switch runtime.GOARCH {
	case "amd64":
		return waitsAMD64
	case "arm64":
		return waitsARM64
	}
	return nil
}

var waitsAMD64 = map[int]wait{
	0: {}, 19: {}, 45: {}, 47: {}, 43: {}, 288: {}, 61: {}, 247: {}, 34: {}, 130: {}, // read readv recvfrom recvmsg accept accept4 wait4 waitid pause rt_sigsuspend
	202: {timeout: 4, op: 2},        // futex
	35:  {timeout: 1},               // nanosleep
	230: {timeout: 3, op: -2},       // clock_nanosleep
	232: {timeout: 4, millis: true}, // epoll_wait
	281: {timeout: 4, millis: true}, // epoll_pwait
	441: {timeout: 4},               // epoll_pwait2
	7:   {timeout: 3, millis: true}, // poll
	271: {timeout: 3},               // ppoll
	23:  {timeout: 5, micros: true}, // select
	270: {timeout: 5},               // pselect6
	128: {timeout: 3},               // rt_sigtimedwait
}

var waitsARM64 = map[int]wait{
	63: {}, 65: {}, 207: {}, 212: {}, 202: {}, 242: {}, 260: {}, 95: {}, 133: {}, // read readv recvfrom recvmsg accept accept4 wait4 waitid rt_sigsuspend
	98:  {timeout: 4, op: 2},        // futex
	101: {timeout: 1},               // nanosleep
	115: {timeout: 3, op: -2},       // clock_nanosleep
	22:  {timeout: 4, millis: true}, // epoll_pwait
	441: {timeout: 4},               // epoll_pwait2
	73:  {timeout: 3},               // ppoll
	72:  {timeout: 5},               // pselect6
	137: {timeout: 3},               // rt_sigtimedwait
}
