package loopback

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/observers"
)

// start starts a listener with lim and closes it when the test ends.
func start(t testing.TB, lim limits) *Listener {
	t.Helper()
	l, err := listen(lim)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

// client talks to loopback only: no proxy, no redirect followed, no
// connection kept.
var client = &http.Client{
	Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
	Timeout: 5 * time.Second,
}

func get(t testing.TB, url string) string {
	t.Helper()
	resp, err := client.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// hostPort strips the scheme from a listener URL.
func hostPort(url string) string { return strings.TrimPrefix(url, "http://") }

// exchange dials addr, sends raw, half-closes, and returns all it reads.
func exchange(t testing.TB, addr, raw string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	_, err = io.WriteString(c, raw)
	require.NoError(t, err)
	c.(*net.TCPConn).CloseWrite()
	b, _ := io.ReadAll(c) // EOF, or a reset after the answer
	return string(b)
}

// dial opens a connection to addr that the test closes when it ends.
func dial(t testing.TB, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// only returns the single record of kind in rs.
func only(t testing.TB, rs []observers.Record, kind string) observers.Record {
	t.Helper()
	var got []observers.Record
	for _, r := range rs {
		if r.Kind == kind {
			got = append(got, r)
		}
	}
	require.Len(t, got, 1, "records of kind %s in %v", kind, rs)
	return got[0]
}

// eventually polls cond for up to 5 s.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still false after 5s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// counts reports the connections being served and those refused so far.
func (l *Listener) counts() (active int, refused int64) {
	l.mu.Lock()
	active = len(l.active)
	l.mu.Unlock()
	return active, l.book.Refused()
}
