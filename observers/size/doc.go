// Package size watches how many bytes the sandbox holds, so a server that
// fills the disk is stopped and reported rather than filling the machine.
//
//	w := size.Start(size.Options{
//		Top:      sandboxTop,
//		MaxBytes: 1 << 30,
//		OnExceed: func(total int64) { stopSandboxProcesses() },
//	})
//	w.Begin(token)
//	// ... the probe calls the server ...
//	recs := w.Collect(token) // op=exceeded when the sandbox crossed the limit
//	late := w.Close()
//
// A Watcher samples Usage every Interval, or every four walks' time when a
// walk takes longer (a large sandbox costs at most a fifth of a core), and
// at Close. At Begin and Collect it samples too, unless Options.Estimate
// (the engine passes the files observer's Allocated, a running count kept
// from its dirty directories) says the last walk's total plus what was
// counted since is still under 90% of MaxBytes: then a probe costs next to
// nothing however large the sandbox. Only a walk decides a record or
// OnExceed.
// When the total first goes over MaxBytes it records one observers.KindSize
// record, attributed to the open probe, and calls OnExceed once; it calls it
// again only after the total fell back under the limit and crossed it anew.
//
// Usage counts allocated bytes (st_blocks × 512 on Unix, so a sparse file
// counts for what it holds, not what it claims; the file size elsewhere) of
// every entry under the top directory. It never follows a symbolic link,
// counts a file with several hard links once, and reads directories in
// batches, so a directory of millions of entries costs no more memory than
// a few hundred.
package size
