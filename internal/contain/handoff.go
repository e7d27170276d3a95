package contain

import (
	"os"
	"sync"
	"time"
)

// handoffTimeout bounds each side's wait in the hand-off of the seccomp
// listener: the harness for the shim's report, the shim for the ack. It
// is as long as the default start bound: on a loaded machine (load 30 on
// two cores) the shim took more than 5 s to get from its exec to its
// report, and the start failed with containment's error, not the
// server's. A shim that fails ends and closes its end at once, so only a
// shim that hangs is waited for this long.
const handoffTimeout = 30 * time.Second

// handoffAck is the byte the harness answers once it holds the listener.
const handoffAck = 'k'

// A Handoff is the harness's side of a wrapped server's egress observer
// and cgroup leaf: the shim installs the seccomp filter, reports where its
// listener is and waits; Complete takes the listener over once the server
// is started and returns the Observer. Cgroup returns the leaf the server
// starts in. A nil *Handoff (neither layer applies) is valid: Complete
// returns a nil Observer, Cgroup a nil Cgroup, and Cancel does nothing.
type Handoff struct {
	harness *os.File // this end of the socket pair; nil without egress
	shim    *os.File // the shim's end, in the spec's ExtraFiles
	once    sync.Once
	cgroup  *Cgroup
}

// Cgroup returns the server's cgroup leaf, nil when the cgroup layer does
// not apply. The caller removes it (Cgroup.Remove) once the server is
// stopped.
func (h *Handoff) Cgroup() *Cgroup {
	if h == nil {
		return nil
	}
	return h.cgroup
}

// Cancel gives up the start: call it when launch.Start failed. A shim
// still waiting for the hand-off sees the harness's end close and exits
// 125 without running the server; the cgroup leaf, with anything in it, is
// killed and removed.
func (h *Handoff) Cancel() {
	if h == nil {
		return
	}
	h.release()
	_, _ = h.cgroup.Remove()
}

// release closes the harness's copies of the hand-off socket pair.
func (h *Handoff) release() {
	h.once.Do(func() {
		if h.harness != nil {
			h.shim.Close()
			h.harness.Close()
		}
	})
}
