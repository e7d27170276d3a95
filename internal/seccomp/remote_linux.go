package seccomp

import (
	"encoding/binary"
	"errors"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Bounds of what is read from the server's memory for one exec.
const (
	maxPath     = 4096 // bytes of the program path
	maxArgs     = 64   // arguments
	maxArg      = 1024 // bytes of one argument
	maxArgBytes = 8192 // bytes of all arguments together
)

var (
	errReadTimeout = errors.New("reading the caller's memory took too long")
	errReadsStuck  = errors.New("too many reads of the caller's memory are blocked")
)

// reader reads the memory of the processes that made a call, each read
// bounded in size and in time: a read the server makes block (memory
// backed by userfaultfd or a stalled FUSE file) is abandoned after
// readTimeout and the call denied.
type reader struct {
	timeout time.Duration
	fetch   func(pid int, addr uint64, n int) ([]byte, error) // readRemote
	stuck   atomic.Int32                                      // abandoned reads still blocked
	running atomic.Int32                                      // read goroutines not returned yet
}

// read copies n bytes at addr in process pid; a short result means the
// memory ended (a fault) after it.
func (r *reader) read(pid int, addr uint64, n int) ([]byte, error) {
	return r.bounded(func() ([]byte, error) { return r.fetch(pid, addr, n) })
}

// bounded runs f, a look into the caller (its memory, or its files as it
// sees them), and waits for it up to r.timeout: past that it is abandoned
// and counted stuck until it returns.
func (r *reader) bounded(f func() ([]byte, error)) ([]byte, error) {
	if r.stuck.Load() >= maxStuckReads {
		return nil, errReadsStuck
	}
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	var state atomic.Int32 // 0 running, 1 returned in time, 2 abandoned
	r.running.Add(1)
	go func() {
		defer r.running.Add(-1)
		b, err := f()
		done <- result{b, err}
		if !state.CompareAndSwap(0, 1) {
			r.stuck.Add(-1) // abandoned, and now unblocked
		}
	}()
	t := time.NewTimer(r.timeout)
	defer t.Stop()
	select {
	case res := <-done:
		return res.b, res.err
	case <-t.C:
		if !state.CompareAndSwap(0, 2) {
			res := <-done // it returned just now
			return res.b, res.err
		}
		r.stuck.Add(1)
		return nil, errReadTimeout
	}
}

// wait waits up to d for every read to return and reports whether they
// did.
func (r *reader) wait(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for r.running.Load() > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// readRemote reads up to n bytes at addr in process pid with
// process_vm_readv, a page at a time so a fault part way returns what
// came before it.
func readRemote(pid int, addr uint64, n int) ([]byte, error) {
	if n <= 0 {
		return nil, nil
	}
	if addr == 0 {
		return nil, unix.EFAULT
	}
	buf := make([]byte, n)
	got := 0
	page := uint64(unix.Getpagesize())
	for got < n {
		at := addr + uint64(got)
		chunk := min(n-got, int(page-at%page))
		local := []unix.Iovec{{Base: &buf[got]}}
		local[0].SetLen(chunk)
		remote := []unix.RemoteIovec{{Base: uintptr(at), Len: chunk}}
		m, err := unix.ProcessVMReadv(pid, local, remote, 0)
		if m > 0 {
			got += m
		}
		if err != nil || m < chunk {
			if got > 0 {
				break
			}
			if err == nil {
				err = unix.EFAULT
			}
			return nil, err
		}
	}
	return buf[:got], nil
}

// readString reads a NUL-terminated string of at most max bytes at addr,
// and reports whether it was cut short.
func (r *reader) readString(pid int, addr uint64, max int) (string, bool, error) {
	var out []byte
	for len(out) < max {
		// up to the page end, so one read never spans into an unmapped page
		page := uint64(unix.Getpagesize())
		at := addr + uint64(len(out))
		n := min(max-len(out), int(page-at%page))
		b, err := r.read(pid, at, n)
		if err != nil {
			return string(out), false, err
		}
		for i, c := range b {
			if c == 0 {
				return string(append(out, b[:i]...)), false, nil
			}
		}
		out = append(out, b...)
		if len(b) < n {
			return string(out), true, nil // the memory ends without a NUL
		}
	}
	return string(out), true, nil
}

// readArgv reads a NULL-terminated array of string pointers at addr
// (argv), within maxArgs, maxArg and maxArgBytes, and reports whether
// anything was cut.
func (r *reader) readArgv(pid int, addr uint64) ([]string, bool, error) {
	if addr == 0 {
		return nil, false, nil
	}
	const ptr = 8 // the filter is installed on 64-bit architectures only
	b, err := r.read(pid, addr, (maxArgs+1)*ptr)
	if err != nil {
		return nil, false, err
	}
	var args []string
	total := 0
	for i := 0; i+ptr <= len(b); i += ptr {
		p := binary.NativeEndian.Uint64(b[i:])
		if p == 0 {
			return args, false, nil
		}
		if len(args) == maxArgs || total >= maxArgBytes {
			return args, true, nil
		}
		s, cut, err := r.readString(pid, p, min(maxArg, maxArgBytes-total))
		if err != nil {
			return args, true, err
		}
		args = append(args, s)
		total += len(s)
		if cut {
			return args, true, nil
		}
	}
	return args, true, nil // the array ran past what was read
}
