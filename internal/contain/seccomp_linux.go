package contain

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccomp(2) constants newer than golang.org/x/sys v0.13 (linux/seccomp.h,
// linux/filter.h).
const (
	seccompSetModeFilter = 1      // SECCOMP_SET_MODE_FILTER
	seccompNewListener   = 1 << 3 // SECCOMP_FILTER_FLAG_NEW_LISTENER

	retAllow     = 0x7fff0000 // SECCOMP_RET_ALLOW
	retUserNotif = 0x7fc00000 // SECCOMP_RET_USER_NOTIF
	retErrno     = 0x00050000 // SECCOMP_RET_ERRNO | errno

	bpfLdAbsW = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJsetK  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRetK   = unix.BPF_RET | unix.BPF_K

	// offsets in struct seccomp_data
	offNr    = 0
	offArch  = 4
	offArg4L = 16 + 4*8 // args[4], low half (little-endian)
	offArg4H = offArg4L + 4
)

// notifyFilter is the egress filter: the calls the harness is asked about
// (connect, sendto with an address, sendmsg, sendmmsg, execve, execveat),
// io_uring_setup denied (its IORING_OP_CONNECT would bypass seccomp), any
// other architecture or ABI (x32, i386) denied with ENOSYS, the rest
// allowed.
func notifyFilter() ([]unix.SockFilter, error) {
	if nativeArch == 0 {
		return nil, fmt.Errorf("no seccomp filter for this architecture")
	}
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jump := func(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: code, K: k, Jt: jt, Jf: jf}
	}
	notified := []uint32{unix.SYS_CONNECT, unix.SYS_SENDMSG, unix.SYS_SENDMMSG, unix.SYS_EXECVE, unix.SYS_EXECVEAT}
	// Layout, with the return statements at the end:
	//   0 ld arch; 1 jeq native ? next : ENOSYS
	//   2 ld nr;   3 jset x32 ? ENOSYS : next
	//   4 jeq io_uring_setup ? ENOSYS : next
	//   5.. jeq each notified ? NOTIF : next
	//   s   jeq sendto ? next : ALLOW
	//   s+1 ld args[4] low; jeq 0 ? next : NOTIF
	//   s+3 ld args[4] high; jeq 0 ? ALLOW : NOTIF
	//   ret ALLOW; ret NOTIF; ret ENOSYS
	n := 5 + len(notified) + 5
	allow, notify, enosys := n, n+1, n+2
	f := make([]unix.SockFilter, 0, n+3)
	to := func(target int) uint8 { return uint8(target - len(f) - 1) } // from the instruction being added
	f = append(f, stmt(bpfLdAbsW, offArch))
	f = append(f, jump(bpfJeqK, nativeArch, 0, to(enosys)))
	f = append(f, stmt(bpfLdAbsW, offNr))
	f = append(f, jump(bpfJsetK, x32Bit, to(enosys), 0))
	f = append(f, jump(bpfJeqK, unix.SYS_IO_URING_SETUP, to(enosys), 0))
	for _, nr := range notified {
		f = append(f, jump(bpfJeqK, nr, to(notify), 0))
	}
	f = append(f, jump(bpfJeqK, unix.SYS_SENDTO, 0, to(allow)))
	f = append(f, stmt(bpfLdAbsW, offArg4L))
	f = append(f, jump(bpfJeqK, 0, 0, to(notify)))
	f = append(f, stmt(bpfLdAbsW, offArg4H))
	f = append(f, jump(bpfJeqK, 0, to(allow), to(notify)))
	if len(f) != n {
		return nil, fmt.Errorf("seccomp filter layout: %d instructions, want %d", len(f), n)
	}
	f = append(f, stmt(bpfRetK, retAllow), stmt(bpfRetK, retUserNotif), stmt(bpfRetK, retErrno|uint32(unix.ENOSYS)))
	return f, nil
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
func handOver(report, listener int) error {
	self, err := os.Readlink("/proc/self") // the pid as the harness's /proc sees it
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
