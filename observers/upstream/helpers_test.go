package upstream

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

// begin starts a stub with o and lim and closes it when the test ends.
func begin(t testing.TB, o Options, lim limits) *Stub {
	t.Helper()
	s, err := start(o, lim)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
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

// reply is what the stub answered.
type reply struct {
	status int
	header http.Header
	body   string
}

// send sends a request built from method, url and body, with header lines
// "Name: value" (a "Host: x" line sets the Host).
func send(t testing.TB, method, url, body string, header ...string) reply {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	for _, h := range header {
		name, value, _ := strings.Cut(h, ": ")
		if name == "Host" {
			req.Host = value
			continue
		}
		req.Header.Add(name, value)
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return reply{resp.StatusCode, resp.Header, string(b)}
}

func get(t testing.TB, url string, header ...string) reply {
	t.Helper()
	return send(t, http.MethodGet, url, "", header...)
}

// dial opens a connection to the stub that the test closes when it ends.
func dial(t testing.TB, s *Stub) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", strings.TrimPrefix(s.URL(), "http://"), 5*time.Second)
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
func (s *Stub) counts() (active int, refused int64) {
	return len(s.ln.slots), s.book.Refused()
}
