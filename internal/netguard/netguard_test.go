package netguard

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.9.9.9": true, "::1": true, "[::1]": true, "localhost": true, "LOCALHOST": true,
		"10.0.0.1": false, "192.168.1.1": false, "203.0.113.7": false, "example.com": false, "0.0.0.0": false, "": false,
	} {
		assert.Equal(t, want, Loopback(host), host)
	}
}

func TestCheckURL(t *testing.T) {
	assert.NoError(t, CheckURL("http://127.0.0.1:8080/mcp"))
	assert.NoError(t, CheckURL("http://localhost:1/x"))
	assert.ErrorContains(t, CheckURL("http://203.0.113.7/mcp"), "only contacts loopback")
	assert.ErrorContains(t, CheckURL("ftp://127.0.0.1/"), "want an http or https URL")
	assert.ErrorContains(t, CheckURL("http://%zz"), "is not a URL")
}

func TestClientReachesLoopbackOnly(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://203.0.113.7/", http.StatusFound)
	}))
	defer srv.Close()
	c := Client(2 * time.Second)
	resp, err := c.Get(srv.URL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusFound, resp.StatusCode, "redirects are not followed")

	// Refused before any packet leaves: the guard runs before dialing.
	_, err = c.Get("http://203.0.113.7/")
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrNotLoopback), "%v", err)
}

func TestDialerControlRefusesResolvedOutsiders(t *testing.T) {
	d := Dialer(time.Second)
	err := d.Control("tcp", "198.51.100.7:443", nil)
	assert.ErrorIs(t, err, ErrNotLoopback)
	assert.NoError(t, d.Control("tcp", "127.0.0.1:80", nil))
}

// TestClientDoesNotReuseAStaleConnection stands for Node's keep-alive
// timeout firing just as the next request arrives: the server answers the
// first request of each connection and closes the connection, unanswered,
// when a second request comes on it. A POST after an idle pause longer
// than IdleConnTimeout (and shorter than the servers' 5 s) must go on a
// fresh connection and be answered; with a reused connection it fails with
// EOF (the client must not resend a POST the server may have processed).
func TestClientDoesNotReuseAStaleConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				r := bufio.NewReader(c)
				req, err := http.ReadRequest(r)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, io.LimitReader(req.Body, 1<<20))
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok")
				_, _ = r.Peek(1) // the second request on this connection: closed unanswered
			}()
		}
	}()
	client := Client(5 * time.Second)
	post := func() error {
		resp, err := client.Post("http://"+ln.Addr().String()+"/mcp", "application/json", strings.NewReader(`{}`))
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return err
	}
	require.NoError(t, post())
	time.Sleep(IdleConnTimeout + 300*time.Millisecond)
	require.NoError(t, post(), "the POST went on the connection kept idle past IdleConnTimeout")
}
