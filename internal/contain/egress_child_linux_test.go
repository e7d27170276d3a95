package contain_test

import (
	"net/netip"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mmsghdr is struct mmsghdr.
type mmsghdr struct {
	Hdr unix.Msghdr
	Len uint32
	_   [4]byte
}

func init() {
	// raw sends one datagram with sendmmsg to args[0] (ip:port), and
	// connects with an address pointer that points nowhere.
	children["raw"] = func(args []string) int {
		ap := netip.MustParseAddrPort(args[0])
		r := result{}
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return emit(result{"err": errText(err)})
		}
		defer unix.Close(fd)
		sa := unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: ap.Addr().As4()}
		sa.Port = ap.Port()>>8 | ap.Port()<<8 // network order
		payload := []byte("sendmmsg")
		iov := unix.Iovec{Base: &payload[0]}
		iov.SetLen(len(payload))
		var m [1]mmsghdr
		m[0].Hdr.Name = (*byte)(unsafe.Pointer(&sa))
		m[0].Hdr.Namelen = uint32(unsafe.Sizeof(sa))
		m[0].Hdr.Iov = &iov
		m[0].Hdr.SetIovlen(1)
		n, _, errno := unix.Syscall6(unix.SYS_SENDMMSG, uintptr(fd), uintptr(unsafe.Pointer(&m[0])), 1, 0, 0, 0)
		r["sendmmsg"], r["sent"] = errText(errnoErr(errno)), int(n)
		_, _, errno = unix.Syscall(unix.SYS_CONNECT, uintptr(fd), 8, 16) // address at 8: unmapped
		r["badptr"] = errText(errnoErr(errno))
		return emit(r)
	}
}

func errnoErr(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}
