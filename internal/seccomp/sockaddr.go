package seccomp

import (
	"encoding/binary"
	"net"
	"net/netip"
	"strconv"
)

// Address families (linux/socket.h); the same numbers on every Linux
// architecture.
const (
	afUnspec  = 0
	afUnix    = 1
	afInet    = 2
	afInet6   = 10
	afNetlink = 16
)

// maxSockaddr is the largest sockaddr the kernel accepts
// (sizeof(struct sockaddr_storage)).
const maxSockaddr = 128

// destination is one decoded sockaddr.
type destination struct {
	family string   // "inet", "inet6", "unix", "netlink", "unspec" or "af<N>"
	addr   net.Addr // for inet, inet6 and unix; nil otherwise
	host   string   // the address, the unix path ("@name" when abstract), or ""
	port   int      // inet and inet6
}

// parseSockaddr decodes a sockaddr as the kernel would read it from b,
// whose length is the call's addrlen. stream says whether the call was a
// connect (a *net.TCPAddr results) or a send (a *net.UDPAddr): the call
// does not say which kind of socket it is on, so this is the likely one.
func parseSockaddr(b []byte, stream bool) destination {
	if len(b) < 2 {
		return destination{family: "short"}
	}
	fam := binary.NativeEndian.Uint16(b)
	switch fam {
	case afInet:
		if len(b) < 8 {
			return destination{family: "inet-short"}
		}
		ip := netip.AddrFrom4([4]byte(b[4:8]))
		return ipDestination("inet", ip, int(binary.BigEndian.Uint16(b[2:4])), stream)
	case afInet6:
		if len(b) < 24 {
			return destination{family: "inet6-short"}
		}
		ip := netip.AddrFrom16([16]byte(b[8:24]))
		return ipDestination("inet6", ip, int(binary.BigEndian.Uint16(b[2:4])), stream)
	case afUnix:
		path := b[2:]
		if len(path) > 0 && path[0] == 0 {
			name := "@" + string(path[1:])
			return destination{family: "unix", host: name, addr: &net.UnixAddr{Name: name, Net: "unix"}}
		}
		for i, c := range path {
			if c == 0 {
				path = path[:i]
				break
			}
		}
		return destination{family: "unix", host: string(path), addr: &net.UnixAddr{Name: string(path), Net: "unix"}}
	case afNetlink:
		return destination{family: "netlink"}
	case afUnspec:
		return destination{family: "unspec"}
	}
	return destination{family: "af" + strconv.Itoa(int(fam))}
}

func ipDestination(family string, ip netip.Addr, port int, stream bool) destination {
	d := destination{family: family, host: ip.String(), port: port}
	if stream {
		d.addr = &net.TCPAddr{IP: ip.AsSlice(), Port: port}
	} else {
		d.addr = &net.UDPAddr{IP: ip.AsSlice(), Port: port}
	}
	return d
}

// String is "127.0.0.1:8080", "[::1]:53", "unix /run/x.sock", "netlink".
func (d destination) String() string {
	switch d.family {
	case "inet", "inet6":
		return net.JoinHostPort(d.host, strconv.Itoa(d.port))
	case "unix":
		return "unix " + d.host
	}
	return d.family
}

// allowed applies the policy: IP and unix destinations are the policy's
// to judge; netlink (the kernel itself) and AF_UNSPEC (a UDP disconnect)
// are always let through; every other family (packet, vsock, ...) is
// denied.
func (d destination) allowed(policy func(net.Addr) bool) bool {
	switch d.family {
	case "netlink", "unspec":
		return true
	}
	if d.addr == nil {
		return false
	}
	return policy(d.addr)
}
