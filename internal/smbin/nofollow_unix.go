//go:build unix

package smbin

import "syscall"

// openGuard makes opening the exec log fail when a link was put in its
// place, and keeps a FIFO put there from blocking the open.
const openGuard = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
