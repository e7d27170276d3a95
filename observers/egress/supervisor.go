package egress

import "time"

// supervisor is the platform's notification loop.
type supervisor interface {
	// stop ends the loop within d, releases the listener, and says what
	// could not be cleaned up.
	stop(d time.Duration) []string
}
