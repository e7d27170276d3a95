package engine

import (
	"context"
	"errors"
	"time"

	"github.com/sealmark/sealmark/observers/egress"
)

// offlineWait is the least a server the sandbox refused the network while
// it started still gets to complete initialize: one that does not is
// waiting on the network (a launcher retrying a registry), and the start
// fails then rather than at the start timeout. The wait is half the start
// bound when that is longer: a slow server whose start-up telemetry was
// refused comes up anyway on a loaded machine (desktop-commander took past
// 5 s beside CI's other tests).
const offlineWait = 5 * time.Second

// errRefusedAtStart is the cause of a start cut short by watchStart.
var errRefusedAtStart = errors.New("refused the network while starting")

// launcherAdvice is what to do about a server that needs the network to start.
const launcherAdvice = "a launcher such as npx or uvx cannot download a package inside it. Install the package first " +
	"(npm install, uv tool install) and point the command at the installed server; sealmark doctor checks the command"

// watchStart returns a context for the start's handshake that is
// cancelled, with cause errRefusedAtStart, once the start's egress
// observer has denied a destination and offlineWait (or half the start
// bound, when longer) has passed since; end
// stops the watch. Without an egress observer it only wraps ctx.
func (e *Engine) watchStart(ctx context.Context) (watched context.Context, end func()) {
	e.mu.Lock()
	obs := e.startEgress
	e.startEgress = nil
	e.mu.Unlock()
	watched, cancel := context.WithCancelCause(ctx)
	if obs == nil {
		return watched, func() { cancel(nil) }
	}
	done := make(chan struct{})
	wait := max(offlineWait, e.cfg.StartTimeout/2)
	go watchDenials(watched, done, obs, wait, func() { cancel(errRefusedAtStart) })
	return watched, func() { close(done); cancel(nil) }
}

func watchDenials(ctx context.Context, done <-chan struct{}, obs *egress.Observer, wait time.Duration, refused func()) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var since time.Time
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		switch {
		case since.IsZero():
			if obs.Counts().Denied > 0 {
				since = time.Now()
			}
		case time.Since(since) >= wait:
			refused()
			return
		}
	}
}
