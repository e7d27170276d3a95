package packs

import (
	"context"
	"time"
)

// Idler is what an Observations may also offer: a barrier on the server's
// process tree going idle (observers/process's Idle), bounded by ceiling.
type Idler interface {
	Idle(ctx context.Context, ceiling time.Duration) bool
}

// WaitIdle waits until the server's process tree is idle, every process
// asleep with nothing due within ceiling, and returns true; or, when the
// run cannot tell (no process observer) or ceiling passes first, it waits
// the whole ceiling and returns false: a fixed wait becomes
//
//	p.WaitIdle(settle) // was time.Sleep(settle)
//
// and ends as soon as the server has nothing left to do, never later than
// it did. It returns early, false, when the probe's context ends.
func (p *Pass) WaitIdle(ceiling time.Duration) bool {
	if ceiling <= 0 {
		return false
	}
	start := time.Now()
	if i, ok := p.Observed.(Idler); ok {
		if i.Idle(p.Ctx, ceiling) {
			return true
		}
	}
	left := ceiling - time.Since(start)
	if left <= 0 {
		return false
	}
	t := time.NewTimer(left)
	defer t.Stop()
	select {
	case <-t.C:
	case <-p.Ctx.Done():
	}
	return false
}

// logPoll is how often WaitLog asks whether the log has caught up.
const logPoll = 2 * time.Millisecond

// WaitLog waits until the server log has caught up with the server: its
// process tree is idle (WaitIdle), so nothing of it is writing, and then
// everything written is in Server.Log (Server.LogDrained: the pipe the
// harness reads is empty and its reader holds nothing back). It returns
// true as soon as both hold; otherwise false once ceiling has passed (or
// the probe's context ended), having waited as a fixed ceiling would:
//
//	p.WaitLog(settle) // was time.Sleep(settle)
//	log := p.Server.Log()
func (p *Pass) WaitLog(ceiling time.Duration) bool {
	start := time.Now()
	if !p.WaitIdle(ceiling) {
		return false
	}
	for !p.Server.LogDrained() {
		left := ceiling - time.Since(start)
		if left <= 0 {
			return false
		}
		t := time.NewTimer(min(logPoll, left))
		select {
		case <-t.C:
		case <-p.Ctx.Done():
			t.Stop()
			return false
		}
	}
	return true
}
