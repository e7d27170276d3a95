// Package netguard is the harness's only way out to the network: a dialer
// and an HTTP client that reach loopback addresses (127.0.0.0/8, ::1) and
// nothing else, never resolve a name other than "localhost", and never use
// a proxy.
//
//	client := netguard.Client(10 * time.Second)
//	resp, err := client.Get("http://127.0.0.1:8080/mcp") // fine
//	_, err = client.Get("http://203.0.113.7/")         // refused before any packet: not a loopback address
package netguard

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrNotLoopback is returned for any destination outside loopback.
var ErrNotLoopback = fmt.Errorf("netguard: refusing a non-loopback address")

// Loopback reports whether host (an IP literal or "localhost") is a
// loopback address. Names other than localhost are never resolved.
func Loopback(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckURL says why a URL is not one the harness may contact.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q: want an http or https URL", raw)
	}
	if !Loopback(u.Hostname()) {
		return fmt.Errorf("%q: the harness only contacts loopback addresses (127.0.0.0/8, ::1, localhost)", raw)
	}
	return nil
}

// Dialer dials loopback only: its Control refuses any other address after
// resolution, so even a name that resolved elsewhere is stopped.
func Dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{
		Timeout: timeout,
		Control: func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			ip := net.ParseIP(host)
			if ip == nil || !ip.IsLoopback() {
				return fmt.Errorf("%w: %s", ErrNotLoopback, address)
			}
			return nil
		},
	}
}

// IdleConnTimeout is how long Client keeps an idle connection for reuse:
// well below the 5 s after which Node (keepAliveTimeout), uvicorn and
// others close an idle keep-alive connection. A POST sent on a connection
// the server is closing at that moment fails with EOF, and must not be
// resent (the server may have processed it), so the client never reuses a
// connection that old; a fresh loopback connection costs little.
const IdleConnTimeout = time.Second

// Client is an HTTP client that reaches loopback only and follows no
// redirect (a redirect is the server's answer, to be judged, not followed).
func Client(timeout time.Duration) *http.Client {
	d := Dialer(timeout)
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy: nil,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				host, port, err := net.SplitHostPort(addr)
				if err != nil {
					return nil, err
				}
				if !Loopback(host) {
					return nil, fmt.Errorf("%w: %s", ErrNotLoopback, addr)
				}
				if strings.EqualFold(host, "localhost") {
					addr = net.JoinHostPort("127.0.0.1", port) // never ask a resolver
				}
				return d.DialContext(ctx, network, addr)
			},
			ForceAttemptHTTP2:     false,
			MaxIdleConns:          8,
			IdleConnTimeout:       IdleConnTimeout,
			ResponseHeaderTimeout: timeout,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
