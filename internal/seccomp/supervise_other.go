//go:build !linux

package seccomp

import (
	"net"
	"runtime"
	"time"
)

// Supervise answers nothing: seccomp is Linux's. It tells sink so in a
// loss record.
func Supervise(fd int, allow func(addr net.Addr) bool, sink Sink) Supervisor {
	sink.Loss("egress is not observed on %s (no seccomp)", runtime.GOOS)
	return none{}
}

type none struct{}

func (none) Stop(time.Duration) []string { return nil }
