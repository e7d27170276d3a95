//go:build linux

package contain

import "golang.org/x/sys/unix"

const (
	nativeArch = unix.AUDIT_ARCH_AARCH64
	x32Bit     = 0x40000000 // no such ABI here; no arm64 call has this bit
)
