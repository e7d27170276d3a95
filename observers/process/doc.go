// Package process watches the server's process tree: who was spawned during
// each probe, which sm-* programs ran, and who is still alive after a start
// stopped. It reads /proc directly, so it needs Linux; elsewhere New returns
// an error and the engine says the process tree is not observed.
//
//	_ = process.EnableSubreaper() // orphans of the server now re-parent to us
//	marker := process.Marker()    // "SEALMARK_RUN=…": put it in every server's environment
//	obs, err := process.New(process.Options{Marker: marker, Bin: sandboxBin, Secrets: red.Mask})
//	if err != nil {
//		return err // not Linux
//	}
//	obs.Track(proc.Pid()) // after each start
//	obs.Begin(token)
//	// ... the probe calls the server ...
//	seen := obs.Collect(token) // op=spawned, op=execve, op=exec records, attributed to token
//	// ... the start stops ...
//	orphans := obs.Sweep(2 * time.Second) // op=orphan records; survivors are killed and reaped
//	late := obs.Close()
//
// Survivors lists the run's live processes with their argv; PIDs lists only
// their pids, for the sockets observer. Sweep holds the Observer while it
// waits for survivors to die (grace, then up to about half a second of SIGKILL rounds).
//
// # What belongs to the run
//
// A process belongs to the run when it is a tracked leader or a descendant of
// one, a member of a tracked leader's process group or session (started after
// the leader), a process whose environment holds the run marker, a child
// adopted by the harness as subreaper, or a descendant of any of these. A
// child of the harness counts as adopted when it sits in a process group other
// than the harness's own (os/exec children stay in the harness's group unless
// asked otherwise), is no leader tracked by any Observer of this process, and
// started after this Observer's first tracked leader. Once a process was seen
// as a member it stays one for as long as it lives. The harness itself and its
// ancestors never belong to a run.
//
// # Records
//
// Every record has Kind observers.KindProcess (or KindLoss) and Data["op"]:
//
//	spawned  a new process of the run: pid, ppid, comm, exe, argv (a JSON array)
//	execve   a process seen before now runs another program (its comm changed)
//	exec     a line of the sandbox's bin/.exec.log: an sm-* program ran (prog, argv, pid, ppid, cwd)
//	orphan   Sweep found the process alive after its start stopped, and killed it
//
// Argv and exe pass through Options.Secrets before they are stored. The
// environment of a process is read only to look for the marker and is never
// recorded. A record is attributed to a probe's token: Data["attributed"] is
// "token" when that token appears in the process's argv (an sm-* program
// carrying it, typically), or "time" when the process was first seen while
// the probe was open. A probe is open from Begin until the next Begin, Sweep
// or Close, and the tree is sampled every Options.Interval while it is open,
// so a spawn that outlives a few milliseconds is seen; a process that exits
// before its argv could be read becomes a KindLoss record.
//
// # The subreaper trap
//
// Once EnableSubreaper was called, an orphaned grandchild re-parents to the
// harness and stays a zombie until someone reaps it. Sweep reaps only the
// adopted pids it found, with Wait4(pid, WNOHANG): os/exec owns the exit
// status of the children it started, so a Wait4(-1) would steal it.
package process
