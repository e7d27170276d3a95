package sockets

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestKnockAddrOnlyLoopback(t *testing.T) {
	for _, tc := range []struct {
		l         Listening
		addr, why string
	}{
		{Listening{Proto: "tcp", Addr: "127.0.0.1", Port: 80, Loopback: true}, "127.0.0.1:80", ""},
		{Listening{Proto: "tcp", Addr: "0.0.0.0", Port: 80, AllInterfaces: true}, "127.0.0.1:80", ""},
		{Listening{Proto: "tcp6", Addr: "::", Port: 80, AllInterfaces: true}, "[::1]:80", ""},
		{Listening{Proto: "tcp", Addr: "192.168.1.7", Port: 80}, "", "not spoken to: bound to 192.168.1.7 only"},
		{Listening{Proto: "udp", Addr: "0.0.0.0", Port: 53, AllInterfaces: true}, "", "not spoken to (udp)"},
	} {
		addr, why := knockAddr(tc.l)
		if addr != tc.addr || !strings.HasPrefix(why, tc.why) {
			t.Errorf("knockAddr(%+v) = %q, %q; want %q, %q", tc.l, addr, why, tc.addr, tc.why)
		}
	}
}

func TestService(t *testing.T) {
	for _, tc := range []struct{ answer, want string }{
		{"HTTP/1.1 200 OK\r\nServer: toy/1\r\n\r\nhello", `HTTP without authentication (GET / → 200, Server: "toy/1")`},
		{"HTTP/1.0 404 Not Found\r\n\r\n", "HTTP without authentication (GET / → 404)"},
		{"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\n\r\n", "HTTP that asks for credentials (GET / → 401)"},
		{"SSH-2.0-OpenSSH_9.6\r\n", `a protocol other than HTTP: it sent "SSH-2.0-OpenSSH_9.6\r\n"`},
		{"", "a service that accepts connections and said nothing to an HTTP request within 1s"},
	} {
		if got := service([]byte(tc.answer)).String(); got != tc.want {
			t.Errorf("service(%q) = %q, want %q", tc.answer, got, tc.want)
		}
	}
}

// TestKnockLive speaks to a real HTTP listener of this process, one that
// asks for credentials, and one that never answers.
func TestKnockLive(t *testing.T) {
	open := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }))
	defer open.Close()
	closed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) }))
	defer closed.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	for _, tc := range []struct {
		addr string
		want string
	}{
		{open.Listener.Addr().String(), "HTTP without authentication (GET / → 200)"},
		{closed.Listener.Addr().String(), "HTTP that asks for credentials (GET / → 401)"},
		{silent.Addr().String(), "a service that accepts connections and said nothing"},
	} {
		_, port, _ := net.SplitHostPort(tc.addr)
		p, _ := strconv.Atoi(port)
		got := Knock(Listening{Proto: "tcp", Addr: "127.0.0.1", Port: p, PID: os.Getpid(), Loopback: true}).String()
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("Knock(%s) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}
