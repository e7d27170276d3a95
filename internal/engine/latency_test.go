package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/sealmark/sealmark/internal/session"
)

// TestBoundsFromLatency: the configured timeouts are the floor; a server
// slower to start or to list its tools gets bounds grown to match, the
// probe's deadline in the same ratio as the call's, and the time the
// harness waited on an unanswered server/discover is not the server's.
func TestBoundsFromLatency(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, c := range []struct {
		name        string
		lat         latency
		call, probe time.Duration
	}{
		{"at rest", measure(t0, t0.Add(400*time.Millisecond), session.Negotiation{}, 5*time.Millisecond), 10 * time.Second, 5 * time.Minute},
		{"slow start", measure(t0, t0.Add(2*time.Minute), session.Negotiation{}, 50*time.Millisecond), 30 * time.Second, 15 * time.Minute},
		{"start slowed by load", measure(t0, t0.Add(30*time.Second), session.Negotiation{}, 50*time.Millisecond), 10 * time.Second, 5 * time.Minute},
		{"slow list", measure(t0, t0.Add(time.Second), session.Negotiation{}, time.Second), 20 * time.Second, 10 * time.Minute},
		{"discover awaited", measure(t0, t0.Add(55*time.Second), session.Negotiation{DiscoverUnanswered: true, Waited: 15 * time.Second}, 5*time.Millisecond), 10 * time.Second, 5 * time.Minute},
		{"capped", measure(t0, t0.Add(5*time.Minute), session.Negotiation{}, 5*time.Millisecond), 40 * time.Second, 20 * time.Minute},
		{"discover answered late", measure(t0, t0.Add(56*time.Second), session.Negotiation{Waited: 15 * time.Second}, 5*time.Millisecond), 14 * time.Second, 7 * time.Minute},
	} {
		pr := &packRun{e: &Engine{cfg: Config{CallTimeout: 10 * time.Second, ProbeTimeout: 5 * time.Minute}}, lat: c.lat}
		assert.Equal(t, c.call, pr.callBound(), "%s: call bound", c.name)
		assert.Equal(t, c.probe, pr.probeBound(), "%s: probe bound", c.name)
	}
}
