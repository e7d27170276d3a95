package upstream

import (
	"bufio"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/observers"
)

func TestSilentClientDoesNotHoldClose(t *testing.T) {
	s := begin(t, Options{}, defaultLimits)
	s.Begin("smtok-quiet")
	dial(t, s)               // connects, sends nothing, stays open
	get(t, s.URL()+"/after") // accepted after the silent one
	half := dial(t, s)       // a head that never ends
	half.Write([]byte("GET /never HTTP/1.1\r\nHost: x\r\n"))

	done := make(chan []observers.Record)
	go func() { done <- s.Close() }()
	select {
	case rs := <-done:
		r := only(t, rs, observers.KindUpstream)
		assert.Equal(t, "/after", r.Data["path"])
	case <-time.After(10 * time.Second):
		t.Fatal("Close still waiting for silent clients after 10s")
	}
}

func TestBoundsTheBodyRead(t *testing.T) {
	const tenMiB = 10 << 20
	s := begin(t, Options{}, defaultLimits)
	s.Begin("smtok-big")
	c := dial(t, s)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	go func() {
		io.WriteString(c, "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: "+strconv.Itoa(tenMiB)+"\r\n\r\nsmtok-big ")
		c.Write(make([]byte, tenMiB)) // fails once the stub closes
	}()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)

	r := only(t, s.Collect("smtok-big"), observers.KindUpstream)
	assert.Equal(t, "65536", r.Data["bytes"])
	assert.Equal(t, "true", r.Data["truncated"])
	assert.Equal(t, "token", r.Data["attributed"])
}

func TestHugeHeadIsRefusedByTheServer(t *testing.T) {
	s := begin(t, Options{}, defaultLimits)
	s.Begin("smtok-head")
	c := dial(t, s)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	go func() {
		io.WriteString(c, "GET /smtok-head HTTP/1.1\r\nHost: x\r\nX-Big: ")
		c.Write([]byte(strings.Repeat("a", 10<<20)))
	}()
	line, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "HTTP/1.1 431 Request Header Fields Too Large\r\n", line)
	assert.Empty(t, s.Collect("smtok-head"), "net/http answers it; no request reaches the stub")
}

func TestRefusesConnectionsPastTheLimitWithALossRecord(t *testing.T) {
	s := begin(t, Options{}, defaultLimits)
	s.Begin("smtok-flood")
	for range 200 {
		dial(t, s) // silent: each holds a slot
	}
	eventually(t, "200 connections accepted or refused", func() bool {
		active, refused := s.counts()
		return active == 64 && refused == 136
	})
	loss := only(t, s.Collect("smtok-flood"), observers.KindLoss)
	assert.Equal(t, "upstream", loss.Observer)
	assert.Equal(t, "smtok-flood", loss.Token)
	assert.Equal(t, map[string]string{"reason": "connections", "count": "136", "limit": "64"}, loss.Data)
	assert.Empty(t, s.Close(), "the loss was returned once; silent clients make no record")
}

func TestDropsRecordsPastTheLimitWithALossRecord(t *testing.T) {
	lim := defaultLimits
	lim.records = 2
	s := begin(t, Options{}, lim)
	s.Begin("smtok-many")
	for i := range 5 {
		get(t, s.URL()+"/"+strconv.Itoa(i))
	}
	rs := s.Collect("smtok-many")
	require.Len(t, rs, 3)
	assert.Equal(t, "/0", rs[0].Data["path"])
	assert.Equal(t, "/1", rs[1].Data["path"])
	assert.Equal(t, observers.KindLoss, rs[2].Kind)
	assert.Equal(t, map[string]string{"reason": "records", "count": "3", "limit": "2"}, rs[2].Data)
}

func TestKeepsTheMostRecentCredentials(t *testing.T) {
	lim := defaultLimits
	lim.credentials = 2
	s := begin(t, Options{}, lim)
	s.Begin("smtok-v")
	for i := range 3 {
		get(t, s.URL()+"/?token=v"+strconv.Itoa(i))
	}
	assert.Equal(t, []Credential{
		{"query:token", strings.TrimPrefix(s.URL(), "http://"), "v1"},
		{"query:token", strings.TrimPrefix(s.URL(), "http://"), "v2"},
	}, s.Credentials("smtok-v"))
}

func TestCloseLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	s, err := start(Options{}, defaultLimits)
	require.NoError(t, err)
	s.Begin("smtok-leak")
	keep := &http.Client{Transport: &http.Transport{Proxy: nil}}
	for i := range 3 {
		resp, err := keep.Get(s.URL() + "/" + strconv.Itoa(i)) // one kept-alive connection
		require.NoError(t, err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for range 3 {
		dial(t, s) // silent, still open at Close
	}
	half := dial(t, s)
	half.Write([]byte("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\npartial")) // body never ends
	eventually(t, "the partial request is being handled", func() bool { return s.inflight.Load() == 1 })

	rs := s.Close()
	require.Len(t, rs, 4)
	assert.Equal(t, "7", rs[3].Data["bytes"], "the partial body is recorded as far as it came")
	keep.CloseIdleConnections()
	eventually(t, "goroutines back to "+strconv.Itoa(before), func() bool {
		return runtime.NumGoroutine() <= before
	})
}
