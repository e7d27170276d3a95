package engine

import (
	"context"
	"time"
)

// Idle is packs.Idler: the process observer's barrier on the run's tree
// going idle, false at once where the run has no process observer
// (Pass.WaitIdle then waits the ceiling).
func (v *probeView) Idle(ctx context.Context, ceiling time.Duration) bool {
	po := v.pr.e.watch.process
	if po == nil {
		return false
	}
	return po.Idle(ctx, ceiling)
}
