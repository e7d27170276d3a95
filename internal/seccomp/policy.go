package seccomp

import (
	"net"
	"slices"
)

// WriteIntent are the open flags that ask to write (O_WRONLY, O_RDWR,
// O_CREAT, O_TRUNC, O_APPEND, the same on every Linux architecture): the
// filter notifies an open or openat only when its flags hold one of them,
// and Supervise records an openat2 only then.
const WriteIntent = 0x1 | 0x2 | 0x40 | 0x200 | 0x400

// Loopback is the default policy: a destination on a loopback address (any
// port) or a unix socket is allowed, anything else is denied.
func Loopback(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.UnixAddr, *UnixSocket:
		return true
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UDPAddr:
		return a.IP.IsLoopback()
	}
	return false
}

// Ports is a stricter policy: unix sockets (all of them; Contained judges
// them too), and loopback addresses only on
// the given ports (the harness's own listeners). Other loopback ports are
// denied too, among them a local DNS stub such as 127.0.0.53:53 that would
// forward the server's queries off the machine.
func Ports(ports ...int) func(net.Addr) bool {
	ports = slices.Clone(ports)
	return func(addr net.Addr) bool {
		switch a := addr.(type) {
		case *net.UnixAddr:
			return true
		case *net.TCPAddr:
			return a.IP.IsLoopback() && slices.Contains(ports, a.Port)
		case *net.UDPAddr:
			return a.IP.IsLoopback() && slices.Contains(ports, a.Port)
		}
		return false
	}
}
