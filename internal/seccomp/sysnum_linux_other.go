//go:build linux && !amd64

package seccomp

// No open or creat here (arm64 has only openat): numbers no call has.
const (
	sysOpen  = -1
	sysCreat = -2
)
