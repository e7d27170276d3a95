//go:build linux

package contain

import "golang.org/x/sys/unix"

const (
	nativeArch = unix.AUDIT_ARCH_X86_64
	x32Bit     = 0x40000000 // __X32_SYSCALL_BIT: x32 calls share the arch
)
