package table

import "time"

// SetProcessObserved pretends the platform has (or lacks) a process
// observer until the returned function restores it.
func SetProcessObserved(ok bool) (restore func()) {
	old := processObserved
	processObserved = func() bool { return ok }
	return func() { processObserved = old }
}

// SetOutlivedGrace shortens the grace NoProcessOutlived gives.
func SetOutlivedGrace(d time.Duration) (restore func()) {
	old := outlivedGrace
	outlivedGrace = d
	return func() { outlivedGrace = old }
}
