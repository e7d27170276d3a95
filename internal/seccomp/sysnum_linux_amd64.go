package seccomp

import "golang.org/x/sys/unix"

// The open calls only this architecture has (the filter notifies open
// when its flags ask to write, creat always).
const (
	sysOpen  = unix.SYS_OPEN
	sysCreat = unix.SYS_CREAT
)
