package egress

import (
	"net"
	"slices"
)

// Loopback is the default policy: a destination on a loopback address (any
// port) or a unix socket is allowed, anything else is denied.
func Loopback(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.UnixAddr:
		return true
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UDPAddr:
		return a.IP.IsLoopback()
	}
	return false
}

// Ports is a stricter policy: unix sockets, and loopback addresses only on
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
