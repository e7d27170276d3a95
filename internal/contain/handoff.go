package contain

import (
	"os"
	"sync"
	"time"
)

// handoffTimeout bounds each side's wait in the hand-off of the seccomp
// listener: the harness for the shim's report, the shim for the ack.
const handoffTimeout = 5 * time.Second

// handoffAck is the byte the harness answers once it holds the listener.
const handoffAck = 'k'

// A Handoff is the harness's side of a wrapped server's egress observer:
// the shim installs the seccomp filter, reports where its listener is and
// waits; Complete takes the listener over once the server is started and
// returns the Observer. A nil *Handoff (egress not observed) is valid:
// Complete returns a nil Observer and Cancel does nothing.
type Handoff struct {
	harness *os.File // this end of the socket pair
	shim    *os.File // the shim's end, in the spec's ExtraFiles
	once    sync.Once
}

// Cancel releases the hand-off without completing it: call it when
// launch.Start failed. A shim still waiting sees the harness's end close
// and exits 125 without running the server. Complete calls it too.
func (h *Handoff) Cancel() {
	if h == nil {
		return
	}
	h.once.Do(func() {
		h.shim.Close()
		h.harness.Close()
	})
}
