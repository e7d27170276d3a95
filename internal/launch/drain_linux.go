package launch

import (
	"errors"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Read reads the pipe through the runtime's poller, taking mu with the
// bytes: mu is taken before the read(2) that returns them and kept until
// the reader's next Read (or finish), so no byte is ever out of the pipe
// and not yet taken in while mu is free.
func (r *pipeReader) Read(b []byte) (int, error) {
	r.release()
	rc, err := r.f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	cerr := rc.Read(func(fd uintptr) bool {
		r.mu.Lock()
		for {
			n, rerr = syscall.Read(int(fd), b)
			if !errors.Is(rerr, syscall.EINTR) {
				break
			}
		}
		if errors.Is(rerr, syscall.EAGAIN) {
			r.mu.Unlock()
			return false // wait for the poller to find bytes
		}
		r.held = true
		return true
	})
	switch {
	case cerr != nil:
		return 0, cerr
	case rerr != nil:
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: rerr}
	case n <= 0 && len(b) > 0:
		return 0, io.EOF
	}
	return n, nil
}

// emptyPipe reports whether the pipe holds no byte (FIONREAD, named
// TIOCINQ here); false when it cannot be asked (it was closed).
func emptyPipe(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	n, ierr := -1, error(nil)
	if err := rc.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }); err != nil || ierr != nil {
		return false
	}
	return n == 0
}
