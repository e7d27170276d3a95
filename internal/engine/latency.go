package engine

import (
	"time"

	"github.com/sealmark/sealmark/internal/session"
)

// listFactor is how many tool list round trips a call may take before its
// bound is past what the server's measured latency asks for; startShare
// is the share of its start time (a start loads every module of a server
// and starts the containment, far more work than one call).
const (
	listFactor = 20
	startShare = 4 // a quarter
)

// maxGrowth caps how far the measured latency grows the configured
// bounds: a probe that waits out the call bound on purpose (db's
// statement-timeout sends pg_sleep(60)) must still see it pass first.
const maxGrowth = 4

// latency is what a start measured of the server's speed: how long its
// process took to answer initialize (less the time server/discover was
// awaited alone and unanswered, the harness's own bound), and the round
// trip of its tools/list.
type latency struct {
	start, list time.Duration
}

// measure is the latency of a start that began at begun (the process's
// start; the start's own for a server reached by URL), answered
// initialize at inited with negotiation neg, and listed its tools in list.
func measure(begun, inited time.Time, neg session.Negotiation, list time.Duration) latency {
	start := inited.Sub(begun)
	if neg.DiscoverUnanswered {
		start -= neg.Waited
	}
	return latency{start: max(start, 0), list: list}
}

// callBound is the bound of one request of a probe: the configured
// timeouts.call as a floor, raised to a quarter of the server's start
// time or listFactor tool list round trips, at most maxGrowth times the
// configured value, so that a server the machine's load slows down gets
// the same verdict as at rest. A probe's deadline (probeBound) grows in
// the same ratio.
func (pr *packRun) callBound() time.Duration {
	c := pr.e.cfg.CallTimeout
	return max(c, min(maxGrowth*c, max(pr.lat.start/startShare, listFactor*pr.lat.list)))
}

// probeBound is timeouts.probe grown as callBound grew the call bound.
func (pr *packRun) probeBound() time.Duration {
	c := pr.e.cfg.CallTimeout
	b := pr.callBound()
	if b <= c || c <= 0 {
		return pr.e.cfg.ProbeTimeout
	}
	return time.Duration(float64(pr.e.cfg.ProbeTimeout) * float64(b) / float64(c))
}
