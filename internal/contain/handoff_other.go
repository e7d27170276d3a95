//go:build !linux

package contain

import (
	"errors"
	"net"

	"github.com/sealmark/sealmark/internal/seccomp"
)

func newHandoff() (*Handoff, error) { return nil, errors.New("contain: no seccomp here") }

// Complete returns no loop: there is no seccomp layer here (h is always
// nil).
func (h *Handoff) Complete(pid int, allow func(addr net.Addr) bool, sink seccomp.Sink) (seccomp.Supervisor, error) {
	return nil, nil
}
