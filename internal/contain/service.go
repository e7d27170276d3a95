package contain

import (
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
)

// A Service is a host endpoint a contained server may reach although it
// is outside the sandbox: a database on the machine's loopback, or its
// unix socket (sandbox.services). A TCP service is forwarded into the
// server's network namespace by the shim, like the harness's own ports;
// a unix service is reached at its path. Each connection is recorded by
// the egress observer.
type Service struct {
	// Network is "tcp" or "unix".
	Network string
	// Address is "127.0.0.1:5432" or "[::1]:5432" for tcp (a loopback
	// address that names no host: the harness never resolves names), an
	// absolute path for unix.
	Address string
}

// ParseService reads "tcp:127.0.0.1:5432" or
// "unix:/var/run/postgresql/.s.PGSQL.5432".
func ParseService(s string) (Service, error) {
	network, addr, ok := strings.Cut(s, ":")
	switch {
	case !ok:
		return Service{}, fmt.Errorf("service %q: want tcp:127.0.0.1:<port> or unix:/absolute/path", s)
	case network == "tcp":
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return Service{}, fmt.Errorf("service %q: %v", s, err)
		}
		ip, err := netip.ParseAddr(host)
		if err != nil || (ip != netip.MustParseAddr("127.0.0.1") && ip != netip.IPv6Loopback()) {
			return Service{}, fmt.Errorf("service %q: the host must be 127.0.0.1 or [::1] (a contained server reaches only loopback, and names are never resolved)", s)
		}
		p, err := strconv.Atoi(port)
		if err != nil || p < 1 || p > 65535 {
			return Service{}, fmt.Errorf("service %q: %q is not a TCP port", s, port)
		}
		return Service{Network: "tcp", Address: net.JoinHostPort(ip.String(), port)}, nil
	case network == "unix":
		if !filepath.IsAbs(addr) || filepath.Clean(addr) != addr {
			return Service{}, fmt.Errorf("service %q: the socket path must be absolute and clean", s)
		}
		return Service{Network: "unix", Address: addr}, nil
	}
	return Service{}, fmt.Errorf("service %q: unknown kind %q (want tcp or unix)", s, network)
}

// String is the form ParseService reads.
func (s Service) String() string { return s.Network + ":" + s.Address }

// Port is a tcp service's port, 0 for unix.
func (s Service) Port() int {
	if s.Network != "tcp" {
		return 0
	}
	_, port, _ := net.SplitHostPort(s.Address)
	p, _ := strconv.Atoi(port)
	return p
}

// servicePorts and serviceSockets split services by kind.
func servicePorts(ss []Service) []int {
	var ports []int
	for _, s := range ss {
		if p := s.Port(); p > 0 {
			ports = append(ports, p)
		}
	}
	return ports
}

func serviceSockets(ss []Service) []string {
	var paths []string
	for _, s := range ss {
		if s.Network == "unix" {
			paths = append(paths, s.Address)
		}
	}
	return paths
}
