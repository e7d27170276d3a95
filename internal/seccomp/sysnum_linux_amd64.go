package seccomp

import "golang.org/x/sys/unix"

// The calls only this architecture has: open and creat (the filter
// notifies open when its flags ask to write, creat always) and the
// path-only forms of the calls that change a directory's entries (arm64
// has only their *at forms).
const (
	sysOpen    = unix.SYS_OPEN
	sysCreat   = unix.SYS_CREAT
	sysUnlink  = unix.SYS_UNLINK
	sysRmdir   = unix.SYS_RMDIR
	sysRename  = unix.SYS_RENAME
	sysLink    = unix.SYS_LINK
	sysSymlink = unix.SYS_SYMLINK
	sysMkdir   = unix.SYS_MKDIR
	sysMknod   = unix.SYS_MKNOD
)
