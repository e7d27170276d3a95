package contain

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/seccomp"
)

// seccomp(2) and BPF names (linux/seccomp.h, linux/filter.h), from
// golang.org/x/sys.
const (
	seccompSetModeFilter = unix.SECCOMP_SET_MODE_FILTER
	seccompNewListener   = unix.SECCOMP_FILTER_FLAG_NEW_LISTENER

	retAllow     = unix.SECCOMP_RET_ALLOW
	retUserNotif = unix.SECCOMP_RET_USER_NOTIF
	retErrno     = unix.SECCOMP_RET_ERRNO // | errno

	bpfLdAbsW = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJsetK  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRetK   = unix.BPF_RET | unix.BPF_K

	// offsets in struct seccomp_data
	offNr    = 0
	offArch  = 4
	offArgs  = 16 // args[0], low half (little-endian); each arg is 8 bytes
	offArg4L = offArgs + 4*8
	offArg4H = offArg4L + 4
)

// flagOpen is an open call and the index of its flags argument.
type flagOpen struct {
	nr   uint32
	flag int
}

// notifiedCalls are the calls the filter always sends to the harness: the
// egress ones (sendto is judged on its address, below), the execs, the
// signals, openat2 (its flags are in a struct the filter cannot read), the
// calls that delete, rename, link or make an entry or truncate a file
// (recorded wherever they point), and the architecture's own (creat,
// unlink, rename, mkdir, ...).
func notifiedCalls() []uint32 {
	calls := []uint32{
		unix.SYS_CONNECT, unix.SYS_SENDMSG, unix.SYS_SENDMMSG,
		unix.SYS_EXECVE, unix.SYS_EXECVEAT,
		unix.SYS_KILL, unix.SYS_TKILL, unix.SYS_TGKILL, unix.SYS_PIDFD_SEND_SIGNAL,
		unix.SYS_RT_SIGQUEUEINFO, unix.SYS_RT_TGSIGQUEUEINFO,
		unix.SYS_OPENAT2,
		unix.SYS_UNLINKAT, unix.SYS_RENAMEAT, unix.SYS_RENAMEAT2, unix.SYS_LINKAT, unix.SYS_SYMLINKAT,
		unix.SYS_MKDIRAT, unix.SYS_MKNODAT, unix.SYS_TRUNCATE,
	}
	return append(calls, archNotified...)
}

// bpfProg assembles a classic BPF program whose jumps name their targets
// by label; every jump goes forward.
type bpfProg struct {
	ins    []unix.SockFilter
	jumps  map[int][2]string // instruction -> labels of its true and false branches
	labels map[string]int
}

func (p *bpfProg) stmt(code uint16, k uint32) {
	p.ins = append(p.ins, unix.SockFilter{Code: code, K: k})
}

// jump adds a conditional jump; "" as a label is the next instruction.
func (p *bpfProg) jump(code uint16, k uint32, yes, no string) {
	p.jumps[len(p.ins)] = [2]string{yes, no}
	p.ins = append(p.ins, unix.SockFilter{Code: code, K: k})
}

func (p *bpfProg) label(name string) { p.labels[name] = len(p.ins) }

// resolve fills in the jump offsets.
func (p *bpfProg) resolve() ([]unix.SockFilter, error) {
	for at, to := range p.jumps {
		var off [2]uint8
		for i, name := range to {
			if name == "" {
				continue
			}
			target, ok := p.labels[name]
			d := target - at - 1
			if !ok || d < 0 || d > 255 {
				return nil, fmt.Errorf("seccomp filter layout: jump from %d to %q (%d)", at, name, target)
			}
			off[i] = uint8(d)
		}
		p.ins[at].Jt, p.ins[at].Jf = off[0], off[1]
	}
	return p.ins, nil
}

// notifyFilter is the egress filter: the calls the harness is asked about
// (connect, sendto with an address, sendmsg, sendmmsg, execve, execveat;
// and, to be recorded only, the opens that ask to write, the deletes,
// renames, links, new directories and nodes, truncates and the signals),
// io_uring_setup denied (its IORING_OP_CONNECT would bypass seccomp), any
// other architecture or ABI (x32, i386) denied with ENOSYS, the rest
// allowed. An open or openat whose flags hold nothing of
// seccomp.WriteIntent (the hot path) is allowed in the kernel.
func notifyFilter() ([]unix.SockFilter, error) {
	if nativeArch == 0 {
		return nil, fmt.Errorf("no seccomp filter for this architecture")
	}
	p := &bpfProg{jumps: map[int][2]string{}, labels: map[string]int{}}
	p.stmt(bpfLdAbsW, offArch)
	p.jump(bpfJeqK, nativeArch, "", "enosys")
	p.stmt(bpfLdAbsW, offNr)
	p.jump(bpfJsetK, x32Bit, "enosys", "")
	p.jump(bpfJeqK, unix.SYS_IO_URING_SETUP, "enosys", "")
	for _, nr := range notifiedCalls() {
		p.jump(bpfJeqK, nr, "notify", "")
	}
	p.jump(bpfJeqK, unix.SYS_SENDTO, "sendto", "")
	for i, o := range flagOpens {
		p.jump(bpfJeqK, o.nr, "open"+strconv.Itoa(i), "")
	}
	p.stmt(bpfRetK, retAllow)
	// sendto: notified only with an address (args[4] != NULL)
	p.label("sendto")
	p.stmt(bpfLdAbsW, offArg4L)
	p.jump(bpfJeqK, 0, "", "notify")
	p.stmt(bpfLdAbsW, offArg4H)
	p.jump(bpfJeqK, 0, "allow", "notify")
	// opens: notified only when the flags (an int: the low half) ask to write
	for i, o := range flagOpens {
		p.label("open" + strconv.Itoa(i))
		p.stmt(bpfLdAbsW, uint32(offArgs+8*o.flag))
		p.jump(bpfJsetK, seccomp.WriteIntent, "notify", "allow")
	}
	p.label("allow")
	p.stmt(bpfRetK, retAllow)
	p.label("notify")
	p.stmt(bpfRetK, retUserNotif)
	p.label("enosys")
	p.stmt(bpfRetK, retErrno|uint32(unix.ENOSYS))
	return p.resolve()
}

// unfiltered runs f on a thread the egress filter is not on, and returns
// its error. A resident shim's own signals (passing a signal on, looking
// for what is left in its namespace) are the harness's doing: made from
// the filtered thread, they would be recorded as the server's and, once
// the observer is closed, fail with ENOSYS. The shim's main goroutine is
// locked to the filtered thread, so the goroutine f runs in is on
// another thread, and the runtime makes no thread from a locked one (it
// asks its template thread, started before the filter was installed).
func unfiltered(f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	return <-done
}

// kill is syscall.Kill on a thread outside the egress filter.
func kill(pid int, sig syscall.Signal) error {
	return unfiltered(func() error { return syscall.Kill(pid, sig) })
}

// installNotify puts the calling thread (and what it execs or forks) under
// the egress filter and returns the listener, close-on-exec. The thread
// must have no_new_privs set (or CAP_SYS_ADMIN).
func installNotify() (int, error) {
	f, err := notifyFilter()
	if err != nil {
		return -1, err
	}
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	fd, _, e := unix.Syscall(unix.SYS_SECCOMP, seccompSetModeFilter, seccompNewListener, uintptr(unsafe.Pointer(&prog)))
	if e != 0 {
		return -1, fmt.Errorf("seccomp(SET_MODE_FILTER, NEW_LISTENER): %w", e)
	}
	return int(fd), nil
}

// handOver tells the harness, over the socket at report, which process
// holds the listener and under which descriptor number, then waits (up to
// handoffTimeout) for its one-byte ack: the harness takes its own copy
// with pidfd_getfd. A descriptor cannot be sent with SCM_RIGHTS: sendmsg
// is filtered now, and nobody would answer.
// hostPidOnce is this process's pid as the harness's /proc sees it, read
// before a proc of the shim's own pid namespace hides it.
var hostPidOnce = sync.OnceValues(func() (string, error) { return os.Readlink("/proc/self") })

func hostPid() (string, error) { return hostPidOnce() }

func handOver(report, listener int) error {
	self, err := hostPid()
	if err != nil {
		return fmt.Errorf("seccomp hand-off: %w", err)
	}
	msg := self + " " + strconv.Itoa(listener) + "\n"
	if _, err := unix.Write(report, []byte(msg)); err != nil {
		return fmt.Errorf("seccomp hand-off: write: %w", err)
	}
	fds := []unix.PollFd{{Fd: int32(report), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(handoffTimeout.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("seccomp hand-off: poll: %w", err)
		}
		if n == 0 {
			return errors.New("seccomp hand-off: the harness did not take the listener in time")
		}
		break
	}
	var ack [1]byte
	if n, err := unix.Read(report, ack[:]); err != nil || n != 1 || ack[0] != handoffAck {
		return fmt.Errorf("seccomp hand-off: no ack from the harness (%d bytes, %v)", n, err)
	}
	return nil
}
