//go:build linux && !amd64

package seccomp

// No open, creat, unlink, rename, ... here (arm64 has only their *at
// forms): numbers no call has, each its own.
const (
	sysOpen    = -1
	sysCreat   = -2
	sysUnlink  = -3
	sysRmdir   = -4
	sysRename  = -5
	sysLink    = -6
	sysSymlink = -7
	sysMkdir   = -8
	sysMknod   = -9
)
