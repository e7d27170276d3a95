//go:build linux

package contain

import "golang.org/x/sys/unix"

const (
	nativeArch = unix.AUDIT_ARCH_AARCH64
	x32Bit     = 0x40000000 // no such ABI here; no arm64 call has this bit
)

// archNotified: arm64 has no creat (nor open, unlink, rename, mkdir, ...:
// only their *at forms, which are common).
var archNotified []uint32

// flagOpens are the open calls whose flags argument the filter reads, so
// that only the ones asking to write are notified.
var flagOpens = []flagOpen{{unix.SYS_OPENAT, 2}}
