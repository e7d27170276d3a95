// Package serverlog keeps what a server writes to its standard error (or what
// a --start process prints) in a bounded ring: the most recent bytes are held,
// the oldest are dropped, and the loss is counted so the report can say so.
//
//	log := serverlog.New(0) // 1 MiB
//	cmd.Stderr = log        // Write never blocks and never fails
//	_ = cmd.Run()
//	fmt.Print(log.Tail(2048))
//	if n := log.Lost(); n > 0 {
//		fmt.Printf("the server log lost its oldest %d bytes\n", n)
//	}
//
// A Log is safe for concurrent use.
package serverlog
