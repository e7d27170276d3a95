// Package egress answers the seccomp user notifications of a contained
// server: every destination it sends to or connects to and every program
// it executes is recorded, what the policy allows goes on, the rest fails
// with ENETUNREACH.
//
//	spec, hand, err := contain.WrapEgress(spec, contain.Options{Egress: true, AllowPorts: ports})
//	// ...
//	proc, err := launch.Start(spec)
//	// ...
//	obs, err := hand.Complete(proc.Pid(), egress.Ports(ports...)) // runs egress.Supervise
//	obs.Begin(token)
//	// ... the probe calls the server ...
//	for _, r := range obs.Collect(token) {
//		fmt.Println(r.Summary) // pid 123 connect 203.0.113.9:443 -> deny (ENETUNREACH)
//	}
//	late := obs.Close()
//
// The filter (installed by the containment shim, see internal/contain)
// sends connect, sendto with an address, sendmsg, sendmmsg, execve and
// execveat here; it denies io_uring_setup and every foreign ABI (x32,
// i386) itself. Supervise reads each call's sockaddr (or msghdr, or
// path and argv) from the caller's memory with process_vm_readv, every
// read bounded in size and in time, and trusts what it read only after
// SECCOMP_IOCTL_NOTIF_ID_VALID says the caller is still the one blocked
// in the call. Then it answers: SECCOMP_USER_NOTIF_FLAG_CONTINUE for an
// allowed destination or any exec, ENETUNREACH for the rest.
//
// Records: Kind observers.KindSocket with Data op ("connect", "sendto",
// "sendmsg", "sendmmsg"), family ("inet", "inet6", "unix", "netlink",
// "af<N>", or "unreadable" when the address could not be read), addr,
// port, pid and verdict ("allow" or "deny"); Kind observers.KindProcess
// with Data op="exec", path, argv (a JSON array, at most 64 arguments
// and 8 KiB), pid and verdict="allow", and start="true" on the server's
// own start (the first exec, never attributed to a probe). A sendmsg
// without an address (a connected socket) is let through unrecorded.
// Records are attributed by time to the probe open at Begin; at most
// MaxRecords wait for Collect, past that they are counted and a loss
// record says so.
//
// What it is not: a boundary. A CONTINUE is checked before the kernel
// reads the address again, so another thread of the server can change
// it in between; a raw or packet socket sends without any of these
// calls. The network namespace is the hard block; this is the observer
// (and the only block where namespaces are refused).
//
// It fails closed: once the listener is closed, by Close or because the
// harness died, every filtered call of the server and of anything it
// left behind fails with ENOSYS ("function not implemented") for good.
//
// Anywhere but Linux, Supervise returns an Observer that observes nothing
// and says so in a loss record.
package egress
