package seccomp

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp user-notification interface (linux/seccomp.h), from
// golang.org/x/sys.
const (
	ioctlNotifRecv    = unix.SECCOMP_IOCTL_NOTIF_RECV
	ioctlNotifSend    = unix.SECCOMP_IOCTL_NOTIF_SEND
	ioctlNotifIDValid = unix.SECCOMP_IOCTL_NOTIF_ID_VALID

	flagContinue = unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE
)

// seccompData is struct seccomp_data.
type seccompData struct {
	Nr   int32
	Arch uint32
	IP   uint64
	Args [6]uint64
}

// notif is struct seccomp_notif.
type notif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Data  seccompData
}

// notifResp is struct seccomp_notif_resp.
type notifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

func ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(arg))
	if e != 0 {
		return e
	}
	return nil
}

// recv takes the next notification; it blocks until there is one.
func recv(fd int) (notif, error) {
	var n notif // must be zero: the kernel refuses anything else
	err := ioctl(fd, ioctlNotifRecv, unsafe.Pointer(&n))
	return n, err
}

// valid reports whether the notification is still pending: its caller is
// still blocked in the call, so the pid still names it.
func valid(fd int, id uint64) bool {
	return ioctl(fd, ioctlNotifIDValid, unsafe.Pointer(&id)) == nil
}

// answer lets the call go on (allow) or makes it fail with errno.
func answer(fd int, id uint64, allow bool, errno unix.Errno) error {
	r := notifResp{ID: id}
	if allow {
		r.Flags = flagContinue
	} else {
		r.Error = -int32(errno)
	}
	return ioctl(fd, ioctlNotifSend, unsafe.Pointer(&r))
}
