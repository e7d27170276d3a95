package engine

import "github.com/sealmark/sealmark/observers"

// abandon runs, in a goroutine of its own, the moment the run's context
// ends early (a signal, the run's deadline): the run is on its way out,
// so what its end would otherwise spend seconds on is cut now. The
// servers die with their cgroup leaves (every process at once, whatever
// it forked; the process group where there is no leaf), and the observers
// that can take long cut short the look they are in and take no last one.
// The starts' stops and Close that follow then find nothing to wait for:
// no server to grant a grace, no pipe held open by a fork, no walk of a
// sandbox about to be deleted.
func (e *Engine) abandon() {
	e.mu.Lock()
	e.hurry = true
	leaves := append([]cgroupLeaf(nil), e.cgroups...)
	running := e.running
	e.mu.Unlock()
	if e.watch != nil {
		for _, o := range e.watch.all {
			if a, ok := o.(observers.Abandoner); ok {
				a.Abandon()
			}
		}
	}
	if running != nil && running.proc != nil {
		running.proc.Kill()
	}
	for _, l := range leaves {
		_ = l.cg.Kill() // Remove, in the start's stop, reports what it finds
	}
}
