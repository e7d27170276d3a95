// Package sockets finds the listening sockets a server's process tree opened:
// a stdio server has no business listening at all, and one listening on all
// interfaces exposes itself to the network.
//
//	obs := sockets.New(procObs.PIDs) // the process observer's current tree
//	obs.Begin(token)
//	// ... the probe calls the server ...
//	for _, r := range obs.Collect(token) {
//		fmt.Println(r.Summary) // pid 123 listens on 0.0.0.0:8080 (all interfaces)
//	}
//	late := obs.Close()
//
// Listeners does the work: it maps each process's socket descriptors
// (/proc/PID/fd/* → "socket:[inode]") to the kernel's socket tables
// (/proc/PID/net/tcp, tcp6, udp, udp6, read in the process's own network
// namespace) by inode. A TCP socket counts when it is in the LISTEN state, a
// UDP socket when it is bound and not connected. It needs /proc, so anywhere
// but Linux it returns an error and the Observer records that listeners are
// not observed.
//
// Each listener is reported once (by inode), as a record of Kind
// observers.KindSocket with Data op="listen", proto, addr, port, pid, inode
// and scope ("loopback", "all-interfaces" or "other"). The first eight TCP
// listeners are spoken to once (Knock: GET / over loopback, in the holding
// process's network namespace, 1 s and 2 KiB at most; a listener bound to
// a non-loopback address alone is never contacted), and their records add
// serves (in words), http and open (HTTP answered without asking for
// credentials). Attempted outbound
// connections need the seccomp layer, which this run does not have: Close
// says so in a record with op="egress-not-observed".
package sockets
