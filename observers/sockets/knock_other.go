//go:build !linux

package sockets

import (
	"net"
	"time"
)

// dialIn dials addr; without network namespaces the server shares the
// harness's loopback.
func dialIn(_ int, addr string, wait time.Duration) (net.Conn, error) {
	return net.DialTimeout("tcp", addr, wait)
}
