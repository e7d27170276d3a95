package loopback

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/observers"
)

func TestRecordsHTTPRequestCarryingToken(t *testing.T) {
	l := start(t, defaultLimits)
	assert.Equal(t, "loopback", l.Name())
	assert.Equal(t, "http://127.0.0.1:"+strconv.Itoa(l.Port()), l.URL())

	l.Begin("smtok-aaaa1111")
	assert.Equal(t, Body, get(t, l.URL()+"/smtok-aaaa1111/x?q=1"))

	r := only(t, l.Collect("smtok-aaaa1111"), observers.KindConnection)
	assert.Equal(t, "loopback", r.Observer)
	assert.Equal(t, "smtok-aaaa1111", r.Token)
	assert.False(t, r.Time.IsZero())
	d := r.Data
	assert.Equal(t, "GET", d["method"])
	assert.Equal(t, "/smtok-aaaa1111/x?q=1", d["target"])
	assert.Equal(t, hostPort(l.URL()), d["host"])
	assert.Equal(t, hostPort(l.URL()), d["local"])
	assert.True(t, strings.HasPrefix(d["peer"], "127.0.0.1:"), "peer %q", d["peer"])
	assert.Equal(t, "Accept-Encoding,Connection,Host,User-Agent", d["headers"])
	assert.Equal(t, "Go-http-client/1.1", d["user_agent"])
	assert.Equal(t, "true", d["token_found"])
	assert.Equal(t, "token", d["attributed"])
	n, err := strconv.Atoi(d["bytes"])
	require.NoError(t, err)
	assert.Greater(t, n, 40)
	assert.Equal(t, fmt.Sprintf("GET /smtok-aaaa1111/x?q=1 from %s (token in request)", d["peer"]), r.Summary)

	assert.Empty(t, l.Collect("smtok-aaaa1111"), "a record is returned once")
}

func TestAnswersHTTPWithFixedBody(t *testing.T) {
	l := start(t, defaultLimits)
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 27\r\nConnection: close\r\n\r\n"

	got := exchange(t, hostPort(l.URL()), "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	assert.Equal(t, head+"sealmark loopback listener\n", got)

	got = exchange(t, hostPort(l.URL()), "HEAD / HTTP/1.0\r\n\r\n")
	assert.Equal(t, head, got, "HEAD gets no body")

	got = exchange(t, hostPort(l.URL()), "SSH-2.0-OpenSSH_9.6\r\n")
	assert.Empty(t, got, "what is not HTTP gets no answer")
}

func TestAbsoluteFormTargetIsAnsweredNotRelayed(t *testing.T) {
	l := start(t, defaultLimits)
	l.Begin("smtok-relay")
	for _, raw := range []string{
		"GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n",
		"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
	} {
		got := exchange(t, hostPort(l.URL()), raw)
		assert.True(t, strings.HasSuffix(got, "\r\n\r\n"+Body), "the listener answers itself: got %q", got)
	}
	rs := l.Collect("smtok-relay")
	require.Len(t, rs, 2)
	assert.Equal(t, "http://example.com/", rs[0].Data["target"])
	assert.Equal(t, "example.com", rs[0].Data["host"])
	assert.Equal(t, "CONNECT", rs[1].Data["method"])
	assert.Equal(t, "example.com:443", rs[1].Data["target"])
}

func TestKeepsHeaderValuesOnlyForAllowlist(t *testing.T) {
	l := start(t, defaultLimits)
	l.Begin("smtok-hdr")
	exchange(t, hostPort(l.URL()), "POST /in HTTP/1.1\r\n"+
		"Host: 127.0.0.1\r\n"+
		"Authorization: Bearer sekrit-1\r\n"+
		"cookie: s=sekrit-2\r\n"+
		"X-Api-Key: sekrit-3\r\n"+
		"User-Agent: probe-agent\r\n"+
		"Content-Type: text/plain\r\n"+
		"Content-Length: 5\r\n\r\nhello")
	r := only(t, l.Collect("smtok-hdr"), observers.KindConnection)
	for k, v := range r.Data {
		assert.NotContains(t, v, "sekrit", "Data[%s]", k)
	}
	assert.NotContains(t, r.Summary, "sekrit")
	assert.Equal(t, "Authorization,Content-Length,Content-Type,Cookie,Host,User-Agent,X-Api-Key", r.Data["headers"])
	assert.Equal(t, "probe-agent", r.Data["user_agent"])
	assert.Equal(t, "text/plain", r.Data["content_type"])
	assert.Equal(t, "5", r.Data["content_length"])
	assert.Equal(t, "time", r.Data["attributed"])
}

func TestAttributesByTimeWhenNoTokenOccurs(t *testing.T) {
	l := start(t, defaultLimits)
	l.Begin("smtok-open")
	get(t, l.URL()+"/no-token-here")
	r := only(t, l.Collect("smtok-open"), observers.KindConnection)
	assert.Equal(t, "smtok-open", r.Token)
	assert.Equal(t, "false", r.Data["token_found"])
	assert.Equal(t, "time", r.Data["attributed"])
	assert.True(t, strings.HasSuffix(r.Summary, "(no token; during the open probe)"), r.Summary)
}

func TestTokenWinsOverTheOpenProbe(t *testing.T) {
	l := start(t, defaultLimits)
	l.Begin("smtok-first")
	l.Begin("smtok-second")

	// The first probe's token, in a header value and in a body.
	exchange(t, hostPort(l.URL()), "GET / HTTP/1.1\r\nX-Trace: smtok-first\r\n\r\n")
	exchange(t, hostPort(l.URL()), "POST / HTTP/1.1\r\nContent-Length: 17\r\n\r\nid=smtok-first&x=")
	// Both tokens: the one begun last wins.
	exchange(t, hostPort(l.URL()), "GET /smtok-first/smtok-second HTTP/1.1\r\n\r\n")

	first := l.Collect("smtok-first")
	require.Len(t, first, 2)
	for _, r := range first {
		assert.Equal(t, "token", r.Data["attributed"])
		assert.Equal(t, "true", r.Data["token_found"])
	}
	second := l.Collect("smtok-second")
	require.Len(t, second, 1)
	assert.Equal(t, "/smtok-first/smtok-second", second[0].Data["target"])
}

func TestBeginEmptyOpensNoProbe(t *testing.T) {
	l := start(t, defaultLimits)
	l.Begin("smtok-done")
	l.Begin("")
	get(t, l.URL()+"/between-probes")
	assert.Empty(t, l.Collect("smtok-done"))

	r := only(t, l.Close(), observers.KindConnection)
	assert.Empty(t, r.Token)
	assert.Equal(t, "none", r.Data["attributed"])
	assert.True(t, strings.HasSuffix(r.Summary, "(no token; no probe open)"), r.Summary)
}

func TestCloseReturnsWhatNoCollectReturned(t *testing.T) {
	l := start(t, defaultLimits)
	l.Begin("smtok-a")
	get(t, l.URL()+"/one")
	require.Len(t, l.Collect("smtok-a"), 1)
	get(t, l.URL()+"/late") // still during smtok-a, after its Collect

	rs := l.Close()
	r := only(t, rs, observers.KindConnection)
	assert.Equal(t, "/late", r.Data["target"])
	assert.Equal(t, "smtok-a", r.Token)
	assert.Nil(t, l.Close(), "a second Close returns nothing")
	assert.Nil(t, l.Collect("smtok-a"))
}

func TestRecordsBytesThatAreNotHTTP(t *testing.T) {
	l := start(t, defaultLimits)
	l.Begin("smtok-raw")
	exchange(t, hostPort(l.URL()), "\x00\x01hello smtok-raw\n")
	r := only(t, l.Collect("smtok-raw"), observers.KindConnection)
	assert.Equal(t, `\x00\x01hello smtok-raw\x0a`, r.Data["preview"])
	assert.Equal(t, "18", r.Data["bytes"])
	assert.Equal(t, "token", r.Data["attributed"])
	assert.NotContains(t, r.Data, "method")
	assert.Equal(t, fmt.Sprintf("18 bytes, not HTTP, from %s (token in data)", r.Data["peer"]), r.Summary)
}

func TestListensOnIPv6LoopbackWhenAvailable(t *testing.T) {
	l := start(t, defaultLimits)
	if l.URL6() == "" {
		ln, err := net.Listen("tcp6", "[::1]:0")
		if err == nil {
			ln.Close()
			t.Fatal("URL6 is empty although [::1] can be listened on")
		}
		t.Skipf("IPv6 loopback unavailable here: %v", err)
	}
	require.True(t, strings.HasPrefix(l.URL6(), "http://[::1]:"), l.URL6())
	l.Begin("smtok-six")
	assert.Equal(t, Body, get(t, l.URL6()+"/smtok-six"))
	r := only(t, l.Collect("smtok-six"), observers.KindConnection)
	assert.True(t, strings.HasPrefix(r.Data["peer"], "[::1]:"), r.Data["peer"])
	assert.Equal(t, hostPort(l.URL6()), r.Data["local"])
}

func TestSilentClientDoesNotHoldClose(t *testing.T) {
	l := start(t, defaultLimits)
	l.Begin("smtok-quiet")
	dial(t, hostPort(l.URL())) // connects, sends nothing, stays open
	get(t, l.URL()+"/after")   // accepted after the silent one

	done := make(chan []observers.Record)
	go func() { done <- l.Close() }()
	var rs []observers.Record
	select {
	case rs = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close still waiting for a silent client after 10s")
	}
	require.Len(t, rs, 2)
	silent := rs[0]
	if silent.Data["method"] != "" {
		silent = rs[1]
	}
	assert.Equal(t, "0", silent.Data["bytes"])
	assert.Equal(t, "smtok-quiet", silent.Token)
	assert.Equal(t, "time", silent.Data["attributed"])
}

func TestBoundsWhatOneClientSends(t *testing.T) {
	const tenMiB = 10 << 20
	l := start(t, defaultLimits)
	l.Begin("smtok-big")
	for _, prefix := range []string{
		"smtok-big ", // not HTTP
		"POST /smtok-big HTTP/1.1\r\nContent-Length: " + strconv.Itoa(tenMiB) + "\r\n\r\n",
	} {
		c := dial(t, hostPort(l.URL()))
		c.SetDeadline(time.Now().Add(5 * time.Second))
		go func() {
			c.Write([]byte(prefix))
			c.Write(make([]byte, tenMiB)) // fails once the listener closes
		}()
		buf := make([]byte, 1024)
		for {
			if _, err := c.Read(buf); err != nil {
				break // closed by the listener: the record is kept
			}
		}
	}
	rs := l.Collect("smtok-big")
	require.Len(t, rs, 2)
	for _, r := range rs {
		assert.Equal(t, "8192", r.Data["bytes"])
		assert.Equal(t, "true", r.Data["truncated"])
		assert.Equal(t, "token", r.Data["attributed"])
	}
	assert.Equal(t, "POST", rs[1].Data["method"])
}
