//go:build linux

package contain

import "golang.org/x/sys/unix"

const (
	nativeArch = unix.AUDIT_ARCH_X86_64
	x32Bit     = 0x40000000 // __X32_SYSCALL_BIT: x32 calls share the arch
)

// archNotified are this architecture's calls the filter always notifies
// besides the common ones: creat always opens for writing, and the
// path-only forms of the calls that change a directory's entries.
var archNotified = []uint32{
	unix.SYS_CREAT,
	unix.SYS_UNLINK, unix.SYS_RMDIR, unix.SYS_RENAME, unix.SYS_LINK, unix.SYS_SYMLINK, unix.SYS_MKDIR, unix.SYS_MKNOD,
}

// flagOpens are the open calls whose flags argument the filter reads, so
// that only the ones asking to write are notified.
var flagOpens = []flagOpen{{unix.SYS_OPEN, 1}, {unix.SYS_OPENAT, 2}}
