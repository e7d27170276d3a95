// Package egress is the observer of a contained server's network,
// exec, write and signal attempts: it keeps, attributed to the probe open
// at the time, the records of the seccomp notification loop
// (internal/seccomp) that answers the server's filtered calls, and stops
// that loop at Close.
//
//	spec, hand, err := contain.WrapEgress(spec, contain.Options{Egress: true, AllowPorts: ports})
//	// ...
//	proc, err := launch.Start(spec)
//	// ...
//	obs, err := egress.Take(func(sink seccomp.Sink) (seccomp.Supervisor, error) {
//		return hand.Complete(proc.Pid(), seccomp.Ports(ports...), sink)
//	})
//	obs.Begin(token)
//	// ... the probe calls the server ...
//	for _, r := range obs.Collect(token) {
//		fmt.Println(r.Summary) // pid 123 connect 203.0.113.9:443 -> deny (ENETUNREACH)
//	}
//	late := obs.Close()
//
// Records are attributed by time to the probe open at Begin; at most
// MaxRecords wait for Collect, past that they are counted and a loss
// record says so. What the records hold is internal/seccomp's to say.
package egress
