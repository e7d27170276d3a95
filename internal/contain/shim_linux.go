package contain

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Exit statuses of a shim that could not run the server. A server's own
// status passes through unchanged (or as 128+n for signal n when a shim
// stays as its parent).
const (
	exitShimFailed = 125 // a layer could not be applied, or the harness is gone
	exitNotExec    = 126 // the program exists but could not be executed
	exitNotFound   = 127 // the program does not exist
)

// forwarded are the signals a resident shim passes on to the server.
var forwarded = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGUSR2}

// shimMain is the shim's whole life; it returns an exit status only when
// it could not exec the server (or, as a resident shim, when the server
// ended).
func shimMain(args []string) int {
	c, err := parseShim(args)
	if err != nil {
		return fail("arguments", err)
	}
	// Every per-thread setting (no_new_privs, Landlock, the network
	// namespace) must be made on the thread that execs or forks the
	// server, and that thread must never exit: Pdeathsig follows it.
	runtime.LockOSThread()
	if err := joinV1(c.Join); err != nil {
		return fail("cgroup", err)
	}
	switch c.Mode {
	case modeProbe:
		return probeChild()
	case modeInner:
		return innerShim(c)
	}
	if err := dieWithParent(c.Ppid); err != nil {
		return fail("pdeathsig", err)
	}
	if c.NS {
		return outerShim(c)
	}
	if err := c.restrict(); err != nil {
		return fail("restrict", err)
	}
	if err := c.observe(); err != nil {
		return fail("seccomp", err)
	}
	err = syscall.Exec(c.Path, append([]string{c.Path}, c.Args...), environ())
	return failExec(c.Path, err)
}

// dieWithParent asks for SIGKILL when the harness dies, then checks that
// it had not died already.
func dieWithParent(ppid int) error {
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_PDEATHSIG): %w", err)
	}
	if ppid != 0 && os.Getppid() != ppid {
		return fmt.Errorf("the harness (pid %d) is gone", ppid)
	}
	return nil
}

// restrict applies the process-wide rlimit and, on the calling thread,
// no_new_privs and Landlock.
func (c shimConfig) restrict() error {
	if c.FileSize > 0 {
		var old unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_FSIZE, &old); err != nil {
			return fmt.Errorf("getrlimit(RLIMIT_FSIZE): %w", err)
		}
		lim := min(uint64(c.FileSize), old.Max)
		if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: lim, Max: lim}); err != nil {
			return fmt.Errorf("setrlimit(RLIMIT_FSIZE): %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if c.Writable == "" && !c.Net && !c.Scope {
		return nil
	}
	abi, err := landlockABI()
	if err != nil {
		return err
	}
	p := landlockPolicy{Net: c.Net, Ports: c.Ports, Scope: c.Scope}
	if c.Writable != "" {
		p.Writable = []string{c.Writable, os.DevNull}
		if c.Mount {
			// bound elsewhere: a write through /tmp never passes the top
			if c.Tmp != "" {
				p.Writable = append(p.Writable, c.Tmp)
			}
			if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
				p.Writable = append(p.Writable, "/dev/shm")
			}
			if c.PTY {
				// the namespace's own devpts: no terminal but the
				// server's own is there to write to
				p.Writable = append(p.Writable, "/dev/pts", "/dev/ptmx")
			}
		}
	}
	return restrictSelf(abi, p)
}

// observe installs the egress filter on the calling thread and hands its
// listener to the harness, when the harness asked for it (c.Report). The
// listener and the report socket are closed before the server runs: a
// server holding the listener could answer its own notifications.
func (c shimConfig) observe() error {
	if c.Report <= 0 {
		return nil
	}
	defer unix.Close(c.Report)
	unix.CloseOnExec(c.Report)
	listener, err := installNotify()
	if err != nil {
		return err
	}
	defer unix.Close(listener)
	return handOver(c.Report, listener)
}

// outerShim starts the inner shim in new namespaces, passes signals on,
// and exits as it does. It is what the harness sees as the server's leader.
func outerShim(c shimConfig) int {
	exe, err := os.Executable()
	if err != nil {
		return fail("inner shim", err)
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return fail("inner shim", err)
	}
	in := c
	in.Mode = modeInner
	in.Join = nil              // joined here already: the inner shim is born a member
	files := []*os.File{lifeR} // fd 3: reads EOF once this shim is gone
	var report, life, statusW *os.File
	if c.Report > 0 {
		// fd 4: the inner shim installs the filter and hands it over
		report = os.NewFile(uintptr(c.Report), "seccomp-handoff")
		files = append(files, report)
		in.Report = lifelineFD + 1
	}
	if c.Life > 0 {
		// the harness's lifeline, and a pipe for the server's status
		// should the inner shim linger
		life = os.NewFile(uintptr(c.Life), "harness-lifeline")
		files = append(files, life)
		in.Life = 2 + len(files)
		var statusR *os.File
		if statusR, statusW, err = os.Pipe(); err != nil {
			return fail("inner shim", err)
		}
		files = append(files, statusW)
		in.Status = 2 + len(files)
		awaitStatus(statusR)
	}
	cmd := exec.Command(exe, in.args()...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = environ()
	cmd.ExtraFiles = files
	cmd.SysProcAttr = nsAttr(c.User)
	// The inner shim asks for its Pdeathsig itself, on the thread it runs
	// on (innerShim): the kernel keeps it per thread, and a lingering shim
	// must drop it on the thread that holds it. One asked for here would
	// sit on the inner shim's main thread, which its goroutine need not
	// run on (it moves between threads before TestMain or main locks it,
	// more often on a loaded machine), and the outer shim's exit would kill
	// a namespace kept for the harness to look at.
	cmd.SysProcAttr.Pdeathsig = 0
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, forwarded...)
	if err := cmd.Start(); err != nil {
		return fail(nsFlags(c.User), err)
	}
	lifeR.Close()
	for _, f := range []*os.File{report, life, statusW} {
		if f != nil {
			f.Close()
		}
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	runtime.KeepAlive(lifeW)
	if cmd.ProcessState == nil {
		return fail("inner shim", err)
	}
	return statusCode(cmd.ProcessState.Sys().(syscall.WaitStatus))
}

// lifelineFD is the inner shim's read end of the outer shim's pipe.
const lifelineFD = 3

// innerShim runs as pid 1 of the new pid namespace: it makes the network
// namespace on its own thread, listens there for the proxy, applies the
// restrictions, forks the server from that thread, reaps every process
// that re-parents to it, and exits with the server's status, which ends
// the namespace and everything left in it.
func innerShim(c shimConfig) int {
	if os.Getpid() != 1 {
		// kill(-1) below would reach far more than the namespace
		return fail("inner shim", errors.New("not pid 1 of a new pid namespace"))
	}
	// Killed when the outer shim dies, asked for on this thread, the one
	// linger drops it on; a shim already gone is found by the lifeline.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0); err != nil {
		return fail("pdeathsig", err)
	}
	// Out of the server's reach before the server exists: a process that
	// is not dumpable can be traced, and its memory read (ptrace,
	// process_vm_readv, /proc/1/mem), only with CAP_SYS_PTRACE over its
	// user namespace, which the server, without capabilities, lacks and
	// the harness has. The flag is the whole process's, every thread's;
	// the server's execve makes the server dumpable again, so the harness
	// and its observers read the server's /proc as before.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fail("dumpable", err)
	}
	unix.CloseOnExec(lifelineFD)
	if cut, err := lifelineCut(); err != nil || cut {
		return fail("inner shim", errors.New("the outer shim is gone"))
	}
	if c.Life > 0 {
		unix.CloseOnExec(c.Life)
		unix.CloseOnExec(c.Status)
		// Its own process group: the harness's sweep of the server's
		// group after the outer shim exits must not end a lingering
		// namespace before the harness has looked at it.
		if err := unix.Setpgid(0, 0); err != nil {
			return fail("inner shim", err)
		}
	}
	if c.Mount {
		_, _ = hostPid() // before /proc is the namespace's own
		l := mountLayout{Top: c.Top, Tmp: c.Tmp, Visible: c.Visible, Hide: c.Hide, PTY: c.PTY}
		if err := setupMounts(l); err != nil {
			return fail("mountns", err)
		}
	}
	if err := enterLoopbackNet(); err != nil {
		return fail("netns", err)
	}
	// The server's own ports (Reverse) are its to listen on inside, not
	// the proxy's, even when it may connect to them.
	lns, targets, err := listenInside(slices.DeleteFunc(slices.Clone(c.Ports), func(p int) bool { return slices.Contains(c.Reverse, p) }))
	if err != nil {
		return fail("netns", err)
	}
	p := newProxy()
	if len(c.Reverse) > 0 {
		nsfd, err := namespaceFD()
		if err != nil {
			return fail("netns", err)
		}
		listenOutside(p, nsfd, c.Reverse)
	}
	if err := c.restrict(); err != nil {
		return fail("restrict", err)
	}
	if err := c.observe(); err != nil {
		return fail("seccomp", err)
	}
	if err := dropCaps(); err != nil {
		return fail("caps", err)
	}
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs, append([]os.Signal{syscall.SIGCHLD}, forwarded...)...)
	pid, err := syscall.ForkExec(c.Path, append([]string{c.Path}, c.Args...), &syscall.ProcAttr{
		Env:   environ(),
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return failExec(c.Path, err)
	}
	for i, ln := range lns {
		go p.serve(ln, targets[i])
	}
	// The outer shim died (and the harness with it, most likely), or the
	// harness did: end the namespace even if Pdeathsig was lost.
	watchLifelines(c.Life)
	tick := time.NewTicker(500 * time.Millisecond) // in case a SIGCHLD was coalesced away
	defer tick.Stop()
	for {
		select {
		case s := <-sigs:
			if s != syscall.SIGCHLD {
				_ = kill(pid, s.(syscall.Signal))
				continue
			}
		case <-tick.C:
		}
		if ws, done := reap(pid); done {
			if c.Status > 0 && othersAlive() {
				return linger(statusCode(ws), c.Status, sigs)
			}
			return statusCode(ws)
		}
	}
}

// reap collects every exited child and reports the server's status once it
// is among them.
func reap(server int) (syscall.WaitStatus, bool) {
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || wpid <= 0 {
			return 0, false
		}
		if wpid == server {
			return ws, true
		}
	}
}

// lifelineCut reports whether the outer shim's end of the lifeline is
// closed.
func lifelineCut() (bool, error) {
	fds := []unix.PollFd{{Fd: lifelineFD, Events: unix.POLLIN}}
	if _, err := unix.Poll(fds, 0); err != nil {
		return false, err
	}
	return fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0, nil
}

func statusCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// environ is the shim's environment: exactly the server's, as the harness
// gave it.
func environ() []string {
	if env := os.Environ(); env != nil {
		return env
	}
	return []string{}
}

func fail(what string, err error) int {
	fmt.Fprintf(os.Stderr, "sealmark-contain: %s: %v\n", what, err)
	return exitShimFailed
}

func failExec(path string, err error) int {
	fmt.Fprintf(os.Stderr, "sealmark-contain: exec %s: %v%s\n", path, err, execHint(path, err))
	if errors.Is(err, syscall.ENOENT) {
		return exitNotFound
	}
	return exitNotExec
}

// execHint says why an exec of a program that is there failed: a script
// whose interpreter is missing (ENOENT names the program, not the
// interpreter), or a file that is neither a script nor a program for this
// machine (ENOEXEC).
func execHint(path string, err error) string {
	f, ferr := os.Open(path)
	if ferr != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := f.Read(head)
	head = head[:n]
	line, _, _ := strings.Cut(string(head), "\n")
	interp, script := strings.CutPrefix(line, "#!")
	switch {
	case errors.Is(err, syscall.ENOENT) && script:
		return fmt.Sprintf(" (the program is there; its interpreter, #!%s, is not)", strings.TrimSpace(interp))
	case errors.Is(err, syscall.ENOEXEC):
		return " (neither a #! script nor a program for this machine)"
	}
	return ""
}
