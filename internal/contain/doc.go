// Package contain keeps a server under test from reaching the network, the
// machine or beyond the run, as far as the platform allows, and says
// exactly how far that was.
//
//	func main() {
//		contain.Dispatch() // first: the binary doubles as the shim
//		// ...
//		for _, line := range contain.SweepStale(os.TempDir()) {
//			log.Print(line) // sandboxes and marked processes of dead runs
//		}
//		sb, _ := sandbox.New(sandbox.Options{})
//		if err := contain.WriteOwner(sb.Top, marker); err != nil { // marker: process.Marker()
//			return err
//		}
//		opts := contain.Options{
//			SandboxTop:   sb.Top,
//			AllowPorts:   []int{loopbackPort, upstreamPort},
//			MaxFileBytes: 64 << 20,
//			Landlock:     true,
//		}
//		fmt.Println("isolation:", contain.Probe().For(opts).Line())
//		spec, err := contain.Wrap(launch.Spec{Path: path, Args: args, Env: env, Dir: sb.Root}, opts)
//		if err != nil {
//			return err
//		}
//		proc, err := launch.Start(spec)
//		// ...
//		// With opts.Egress, WrapEgress instead, then after launch.Start:
//		// obs, err := egress.Take(func(sink seccomp.Sink) (seccomp.Supervisor, error) {
//		// 	return hand.Complete(proc.Pid(), seccomp.Ports(opts.AllowPorts...), sink)
//		// })
//	}
//
// # Layers
//
// Probe tries each mechanism once per process, in a child of the harness
// binary started the way a server will be, and records the exact error of
// each one that is refused. Wrap puts the shim (the harness binary with
// Verb) in front of the server; the shim applies, in this order:
//
//   - Pdeathsig: SIGKILL when the harness dies (checked against a harness
//     that died before it was set);
//   - RLIMIT_FSIZE (Options.MaxFileBytes): a per-file cap, EFBIG past it;
//   - no_new_privs: setuid programs and file capabilities grant nothing;
//   - Landlock (Options.Landlock): writes only beneath Options.SandboxTop
//     and to /dev/null, reads everywhere; with ABI >= 4 TCP connect only to
//     Options.AllowPorts; with ABI >= 6 no signals and no abstract unix
//     sockets outside the server's own tree;
//   - namespaces (Options.NetNS): a new pid namespace (plus a user
//     namespace when not root) whose pid 1 is a resident shim, not
//     dumpable, so the server can neither trace it nor read its memory
//     (ptrace, process_vm_readv, /proc/1/mem: EPERM), and a
//     network namespace whose only interface is lo. The resident shim
//     proxies Options.AllowPorts on 127.0.0.1 and ::1 to the same ports on
//     the host, so the server reaches the harness's listeners as usual and
//     nothing else; it reaps orphans, passes SIGTERM, SIGINT, SIGHUP,
//     SIGUSR1 and SIGUSR2 on, and exits with the server's status, which
//     kills everything left in the namespace.
//
// Without namespaces the shim execs the server, which keeps the shim's pid:
// launch's process group, Pid and exit status are the server's own. A layer
// the shim cannot apply fails the start (exit status 125 and a
// "sealmark-contain:" line on stderr); a program that cannot be executed
// gives 126, one that does not exist 127.
//
// # Egress observer
//
// With Options.Egress (through WrapEgress) the shim also installs a
// seccomp user-notification filter, last, on the thread that execs (or,
// with namespaces, forks) the server: connect, sendto with an address,
// sendmsg, sendmmsg, execve and execveat wait for the harness's answer;
// io_uring_setup and foreign ABIs (x32, i386) fail with ENOSYS. So do,
// to be recorded only and always let through, the opens that ask to
// write (open, openat and, on x86_64, creat, when their flags hold
// O_WRONLY, O_RDWR, O_CREAT, O_TRUNC or O_APPEND, checked in the filter
// so read-only opens stay in the kernel; openat2 always, its flags
// checked by the harness) and the signals (kill, tkill, tgkill,
// rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal): a write outside
// the sandbox that Landlock refuses, or a signal to the harness that
// Landlock's scope or the pid namespace keeps from it, is on record
// (package egress says what each record holds). A resident shim sends
// its own signals (passing one on to the server, looking for what is left
// in its namespace) from a thread outside the filter: they are the
// harness's doing, not the server's. The
// listener cannot be sent over a socket (sendmsg is filtered and nobody
// would answer), so the shim writes its pid and the listener's number on
// a socket pair inherited from the harness (spec.ExtraFiles) and waits;
// Handoff.Complete takes a copy with pidfd_open and pidfd_getfd, starts
// seccomp.Supervise on it (feeding the egress observer) and acks; the shim closes its own copy and
// execs. Without the ack within 5 s the shim exits 125. Once the harness
// stops answering (Observer.Close, or the harness died) every filtered
// call fails with ENOSYS: the filter fails closed. Probe installs the
// filter in its child and answers one connect to decide whether the layer
// applies.
//
// # Cgroup leaf
//
// With Options.Cgroup (through WrapEgress), where the harness may make a
// cgroup (root, or a delegated subtree), the server gets a cgroup v2 leaf
// of its own: the harness finds its own cgroup from the "0::" line of
// /proc/self/cgroup beneath the v2 hierarchy (/sys/fs/cgroup, or
// /sys/fs/cgroup/unified on a hybrid host, told apart by the file
// system's magic), makes "sealmark-<pid>-<start>-<n>" as a child of it,
// and launch spawns the shim straight into it (Spec.CgroupFD, clone3 with
// CLONE_INTO_CGROUP), so nothing the server forks escapes it, however it
// daemonizes. As a child of the harness's own cgroup the leaf gets no
// controllers (the kernel lets a cgroup with processes in it enable none
// for its children), unless the harness sits in the root cgroup: pids.max
// and memory.max (Options.MaxProcs, MaxMemory) are written only where the
// leaf offers their controllers, and Isolation.Line names a limit that is
// not enforced. A leaf and its v1 groups are made whole or not at all
// with respect to a signal's cleanup (cleanup.Run, Exit), which waits for
// one being made and then removes it; a removal kills again what was
// spawned into the leaf after its first kill. Handoff.Cgroup gives the
// leaf: Members lists the server's tree from cgroup.procs, Kill kills it
// at once with cgroup.kill (SIGKILL to each member on kernels without it)
// and waits for "populated 0", Remove does that and removes the leaf. The
// harness never writes to a cgroup it did not make.
//
// # Stale runs
//
// WriteOwner leaves an OwnerFile in the sandbox naming the harness process
// (pid and start time) and the run marker. SweepStale, at the next start,
// removes the sandboxes whose owner is gone and kills the processes that
// still carry their marker. It also kills the members of, and removes,
// the cgroup leaves beneath the harness's own cgroup whose name carries
// the pid and start time of a harness that is gone (owned by the calling
// user).
package contain
