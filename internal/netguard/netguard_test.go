package netguard

import (
	"errors"
	"net/http"
	"net/http/httptest"
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
