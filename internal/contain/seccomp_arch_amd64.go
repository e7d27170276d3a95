//go:build linux

package contain

import "golang.org/x/sys/unix"

const (
	nativeArch = unix.AUDIT_ARCH_X86_64
	x32Bit     = 0x40000000 // __X32_SYSCALL_BIT: x32 calls share the arch
)

// archNotified are this architecture's calls the filter always notifies
// besides the common ones: creat always opens for writing.
var archNotified = []uint32{unix.SYS_CREAT}

// flagOpens are the open calls whose flags argument the filter reads, so
// that only the ones asking to write are notified.
var flagOpens = []flagOpen{{unix.SYS_OPEN, 1}, {unix.SYS_OPENAT, 2}}
