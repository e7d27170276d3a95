package contain

import (
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// lingerMax bounds how long the inner shim keeps a namespace whose server
// exited while other processes live on, should the harness never close
// the lifeline.
const lingerMax = 60 * time.Second

// lingerPoll is how often a lingering shim looks whether the rest exited.
const lingerPoll = 20 * time.Millisecond

// lingering is set once the inner shim has reported the server's status
// and keeps the namespace for the harness to sweep: the outer shim's exit
// no longer ends it, only the harness's lifeline (or lingerMax) does.
var lingering atomic.Bool

// watchLifelines ends the namespace when the harness is gone: at EOF on
// the harness's lifeline (life > 0) at any time, and at EOF on the outer
// shim's lifeline unless the shim lingers.
func watchLifelines(life int) {
	end := func() {
		_ = syscall.Kill(-1, syscall.SIGKILL)
		syscall.Exit(exitShimFailed)
	}
	go func() {
		_, _ = io.Copy(io.Discard, os.NewFile(lifelineFD, "lifeline"))
		if !lingering.Load() {
			end()
		}
	}()
	if life > 0 {
		go func() {
			_, _ = io.Copy(io.Discard, os.NewFile(uintptr(life), "harness-lifeline"))
			end()
		}()
	}
}

// othersAlive reports whether any process but the shim lives in its pid
// namespace, after reaping every exited child. kill(-1, 0) from pid 1
// reaches every other process of the namespace.
func othersAlive() bool {
	reapAll()
	return kill(-1, 0) == nil
}

func reapAll() {
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || wpid <= 0 {
			return
		}
	}
}

// linger reports code, the server's status, to the outer shim (which exits
// with it, so the harness sees the server end), then keeps the namespace
// until its other processes exit, the harness's lifeline closes or
// lingerMax passes; signals are passed to every process left.
func linger(code, status int, sigs <-chan os.Signal) int {
	lingering.Store(true)
	// The outer shim is about to exit. Dropped on the thread innerShim
	// asked for it on: the kernel keeps a Pdeathsig per thread.
	_ = unix.Prctl(unix.PR_SET_PDEATHSIG, 0, 0, 0, 0)
	_, _ = unix.Write(status, []byte{byte(code)})
	_ = unix.Close(status)
	deadline := time.NewTimer(lingerMax)
	defer deadline.Stop()
	tick := time.NewTicker(lingerPoll)
	defer tick.Stop()
	for {
		select {
		case s := <-sigs:
			if s != syscall.SIGCHLD {
				_ = kill(-1, s.(syscall.Signal))
			}
		case <-tick.C:
		case <-deadline.C:
			_ = kill(-1, syscall.SIGKILL)
			return code
		}
		if !othersAlive() {
			return code
		}
	}
}

// awaitStatus makes the outer shim exit with the status the inner shim
// reports when it lingers.
func awaitStatus(r *os.File) {
	go func() {
		b := make([]byte, 1)
		if n, _ := r.Read(b); n == 1 {
			os.Exit(int(b[0]))
		}
	}()
}
