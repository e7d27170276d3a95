package seccomp

import "time"

// Supervisor is a running notification loop.
type Supervisor interface {
	// Stop ends the loop within d, releases the listener (from then on
	// the server's filtered calls fail with ENOSYS: the filter fails
	// closed), and says what could not be cleaned up.
	Stop(d time.Duration) []string
}

// Sink receives what the loop saw and decided (observers/egress's
// Observer is one). Its methods are called from the loop's goroutine and
// must not block for long.
type Sink interface {
	// Add records a call: a socket destination, an exec, an open for
	// writing or a signal; unattributed marks the server's own start.
	Add(kind, summary string, data map[string]string, unattributed bool)
	// Count counts an answered call, allowed or denied.
	Count(allowed bool)
	// Stale counts a notification whose caller went away first.
	Stale()
	// Loss records what the loop could not observe.
	Loss(format string, args ...any)
}

// Bounds of the loop's reads of the server's memory.
const (
	// readTimeout bounds one read: a read that takes longer is abandoned
	// and the call it belongs to is denied.
	readTimeout = time.Second
	// maxStuckReads is how many abandoned reads may be pending at once;
	// past it every call that needs a read is denied without one.
	maxStuckReads = 4
)
