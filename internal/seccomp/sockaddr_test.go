package seccomp

import (
	"encoding/binary"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
)

func sockaddr(family uint16, rest ...byte) []byte {
	b := binary.NativeEndian.AppendUint16(nil, family)
	return append(b, rest...)
}

func TestParseSockaddr(t *testing.T) {
	in4 := sockaddr(afInet, 0x01, 0xbb, 203, 0, 113, 9, 0, 0, 0, 0, 0, 0, 0, 0)
	in6 := sockaddr(afInet6, 0, 53, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0)
	mapped := sockaddr(afInet6, 0, 80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1, 0, 0, 0, 0)
	tests := []struct {
		name   string
		b      []byte
		stream bool
		want   string
		allow  bool
	}{
		{"inet outside", in4, true, "203.0.113.9:443", false},
		{"inet6 loopback", in6, false, "[::1]:53", true},
		{"v4-mapped loopback", mapped, true, "[::ffff:127.0.0.1]:80", true},
		{"unix path", sockaddr(afUnix, []byte("/run/x.sock\x00junk")...), true, "unix /run/x.sock", true},
		{"unix abstract", sockaddr(afUnix, append([]byte{0}, "name"...)...), true, "unix @name", true},
		{"netlink", sockaddr(afNetlink, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), false, "netlink", true},
		{"unspec", sockaddr(afUnspec), true, "unspec", true},
		{"packet", sockaddr(17, 0, 0), false, "af17", false},
		{"vsock", sockaddr(40, 0, 0), true, "af40", false},
		{"inet too short", sockaddr(afInet, 0, 80), true, "inet-short", false},
		{"one byte", []byte{2}, true, "short", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := parseSockaddr(tt.b, tt.stream)
			assert.Equal(t, tt.want, d.String())
			assert.Equal(t, tt.allow, d.allowed(Loopback))
		})
	}
	_, isTCP := parseSockaddr(in4, true).addr.(*net.TCPAddr)
	_, isUDP := parseSockaddr(in4, false).addr.(*net.UDPAddr)
	assert.True(t, isTCP && isUDP, "connect judges a TCP address, a send a UDP one")
}

func TestPorts(t *testing.T) {
	allow := Ports(8080)
	assert.True(t, allow(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}))
	assert.True(t, allow(&net.UDPAddr{IP: net.IPv6loopback, Port: 8080}))
	assert.False(t, allow(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8081}), "another loopback port")
	assert.False(t, allow(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 53), Port: 53}), "a DNS stub forwards off the machine")
	assert.False(t, allow(&net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 8080}))
	assert.True(t, allow(&net.UnixAddr{Name: "/run/x.sock", Net: "unix"}))
	assert.False(t, Loopback(&net.TCPAddr{IP: net.IPv4(10, 255, 255, 53), Port: 53}))
}
