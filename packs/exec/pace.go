package exec

import (
	"time"

	"github.com/sealmark/sealmark/packs"
)

// A tool's pace is how long it takes, now, to answer sm-echo: what the
// server spends on any call of the tool. A starved or loaded server pays
// it many times over, and more as the run goes on when it runs helpers of
// its own on each call that pile up. The probes whose verdict rests on
// how long a call took, or on what a child printed before the server's
// own timer, measure it first and give the server's timer and the call the
// slack it implies: at rest it is a fraction of a second and changes
// nothing; starved, a call is judged by what the server did relative to
// its own timer and its own speed, not by the machine's.

// hangFactor is how many times its pace a call may take past the timeout
// it asks the tool for, and how many times its pace that timeout is at
// least, so that the child has run before the server's timer ends the
// wait.
const hangFactor = 5

// paceKey keeps, across the probes of one start, the last pace measured
// on the server now running (outlives-server, which makes no call of its
// own when an earlier probe started its children, reads it).
const paceKey = "exec/pace"

type pacedOn struct {
	server packs.Server
	pace   time.Duration
}

// pace measures t's pace with one call of sm-echo and keeps it for the
// probe's later calls through t. 0 when it got no answer (recorded as any
// call's is): nothing to judge a wait by.
func (r *run) pace(t Tool) time.Duration {
	pl := payload{line: "sm-echo " + r.marker("pace")}
	res, took := r.call(t, pl, "pace "+describe(t, pl))
	if res == nil {
		return 0
	}
	took = max(took, time.Millisecond)
	r.paces[t.Name] = took
	r.p.Shared[paceKey] = &pacedOn{server: r.p.Server, pace: took}
	return took
}

// serverPace is the last pace measured on the server now running, 0 when
// none was.
func serverPace(p *packs.Pass) time.Duration {
	if m, _ := p.Shared[paceKey].(*pacedOn); m != nil && m.server == p.Server {
		return m.pace
	}
	return 0
}

// timer is the timeout a call asks t for: the payload's own, else the
// default, raised to hangFactor times t's pace.
func (r *run) timer(t Tool, pl payload) time.Duration {
	if pl.timeout != 0 {
		return pl.timeout
	}
	return max(r.defaultTimeout(), hangFactor*r.paces[t.Name])
}

// bound bounds a call: the call timeout, or the timer asked for and
// hangFactor times t's pace, whichever is longer; for a child that lives
// for pl.life, at most half its life, so that a server that waits for
// its child still gets no answer within the bound.
func (r *run) bound(t Tool, pl payload) time.Duration {
	b := r.timer(t, pl) + hangFactor*r.paces[t.Name]
	if pl.life > 0 {
		b = min(b, pl.life/2)
	}
	return max(r.p.CallTimeout, b)
}
