package launch

import "time"

// Bounds on the waits of a shutdown that do not come from the caller.
const (
	reapTimeout     = 5 * time.Second // for the leader after SIGKILL
	survivorTimeout = 2 * time.Second // for the group to empty after the sweep
	drainTimeout    = 2 * time.Second // for stdout and stderr to reach EOF
)

// StopReport says how a shutdown went.
type StopReport struct {
	// ExitedOnStdinClose is true when the leader exited within the stdin
	// grace period after its stdin was closed (or had exited before).
	ExitedOnStdinClose bool
	// Signalled lists the signals sent to the group in order: "SIGTERM",
	// then "SIGKILL" if SIGTERM was not enough.
	Signalled []string
	// Leftover lists the pids of the group still running after the leader
	// was reaped (a child that outlived it, a grandchild). They were sent
	// SIGKILL. Pids are listed on Linux only; elsewhere survivors are killed
	// but not named.
	Leftover []int
	// Status is the leader's ExitStatus, "" if it could not be reaped.
	Status string
}

type groupSignal int

const (
	sigTerm groupSignal = iota
	sigKill
)

func (s groupSignal) String() string {
	if s == sigKill {
		return "SIGKILL"
	}
	return "SIGTERM"
}

// Stop shuts the server down as the MCP specification describes: close its
// stdin and wait up to stdinGrace for it to exit; then SIGTERM its process
// group and wait up to termGrace; then SIGKILL the group. Once the leader is
// reaped, anything left in the group is killed and listed. Every wait is
// bounded. Stop also ends Messages and releases the pipes. It is idempotent
// (later calls return the first report) and safe to call with Kill.
func (p *Process) Stop(stdinGrace, termGrace time.Duration) StopReport {
	p.stopOnce.Do(func() { p.report = p.stop(stdinGrace, termGrace) })
	return p.report
}

func (p *Process) stop(stdinGrace, termGrace time.Duration) StopReport {
	var r StopReport
	// A consumer that stopped reading Messages must not stall the framer,
	// or a server blocked on a full stdout could never see its stdin close.
	p.msgW.Close()
	_ = p.stdin.Close()
	r.ExitedOnStdinClose = p.WaitExit(stdinGrace)
	if !r.ExitedOnStdinClose {
		if p.signal(sigTerm) {
			r.Signalled = append(r.Signalled, sigTerm.String())
		}
		if !p.WaitExit(termGrace) {
			if p.signal(sigKill) {
				r.Signalled = append(r.Signalled, sigKill.String())
			}
			p.WaitExit(reapTimeout)
		}
	}
	r.Leftover = p.sweep()
	p.drain()
	r.Status = p.ExitStatus()
	p.undo()
	return r
}

// Kill sends SIGKILL to the whole group now and closes stdin and Messages,
// without waiting: the cleanup for a harness that is itself being stopped.
// It is idempotent; Stop may still be called afterwards to reap and sweep.
func (p *Process) Kill() {
	p.msgW.Close()
	_ = p.stdin.Close()
	p.signal(sigKill)
}

// KillWait is Kill for a harness about to exit: it also waits, at most
// survivorTimeout, for the leader to be reaped and the group to be empty,
// so no process of the run is still alive (or on its way out) when the
// harness is gone. Every process Start starts is registered with package
// cleanup under KillWait from the moment it runs until Stop is done.
func (p *Process) KillWait() {
	p.Kill()
	deadline := time.Now().Add(survivorTimeout)
	if !waitFor(p.done, survivorTimeout) {
		return
	}
	for time.Now().Before(deadline) {
		if _, alive := survivors(p.cmd.Process); !alive {
			p.groupGone.Store(true)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// signal sends sig to the group unless the group is known to be gone (its id
// could belong to another group by now). It reports whether sig was sent.
func (p *Process) signal(sig groupSignal) bool {
	if p.groupGone.Load() {
		return false
	}
	return signalGroup(p.cmd.Process, sig) == nil
}

// sweep kills whatever is left of the group once the leader is reaped, and
// returns the pids it found.
func (p *Process) sweep() []int {
	pids, alive := survivors(p.cmd.Process)
	if !alive {
		p.groupGone.Store(true)
		return nil
	}
	_ = signalGroup(p.cmd.Process, sigKill)
	deadline := time.Now().Add(survivorTimeout)
	for time.Now().Before(deadline) {
		if _, alive := survivors(p.cmd.Process); !alive {
			p.groupGone.Store(true)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return pids
}

// drain lets the framer and the log copier read what the group wrote before
// it ended, then closes the read ends so neither can outlive Stop, even if a
// process that escaped the group still holds stdout or stderr.
func (p *Process) drain() {
	expired := make(chan struct{})
	t := time.AfterFunc(drainTimeout, func() { close(expired) })
	defer t.Stop()
	for _, ch := range []<-chan struct{}{p.framed, p.logged} {
		select {
		case <-ch:
		case <-expired:
		}
	}
	closeAll(p.stdout, p.stderr)
	waitFor(p.framed, time.Second)
	waitFor(p.logged, time.Second)
}

// Terminate stops the leader alone, as an MCP client stops a server that
// ignores the end of its stdin: SIGTERM, then SIGKILL when it has not
// exited within grace. Unlike Stop it signals neither the group nor what
// the leader started, so what outlives the leader can still be seen (Stop
// sweeps it later). It returns the signals sent, in order; none when the
// leader had already exited.
func (p *Process) Terminate(grace time.Duration) []string {
	var sent []string
	if p.WaitExit(0) {
		return nil
	}
	if p.cmd.Process.Signal(terminateSignal) == nil {
		sent = append(sent, sigTerm.String())
	}
	if p.WaitExit(grace) {
		return sent
	}
	if p.cmd.Process.Kill() == nil {
		sent = append(sent, sigKill.String())
	}
	p.WaitExit(reapTimeout)
	return sent
}
