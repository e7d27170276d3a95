package loopback

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/observers"
)

func TestRefusesConnectionsPastTheLimitWithALossRecord(t *testing.T) {
	l := start(t, defaultLimits)
	l.Begin("smtok-flood")
	conns := make([]interface{ Close() error }, 0, 200)
	for range 200 {
		conns = append(conns, dial(t, hostPort(l.URL()))) // silent: each holds a slot
	}
	eventually(t, "200 connections accepted or refused", func() bool {
		active, refused := l.counts()
		return active == 64 && refused == 136
	})

	loss := only(t, l.Collect("smtok-flood"), observers.KindLoss)
	assert.Equal(t, "loopback", loss.Observer)
	assert.Equal(t, "smtok-flood", loss.Token)
	assert.Equal(t, map[string]string{"reason": "connections", "count": "136", "limit": "64"}, loss.Data)
	assert.Equal(t, "refused 136 connections past the limit of 64 open at once", loss.Summary)

	for _, c := range conns {
		c.Close()
	}
	rs := l.Close()
	assert.Len(t, rs, 64, "one record per connection served, no loss reported twice")
	for _, r := range rs {
		assert.Equal(t, observers.KindConnection, r.Kind)
	}
}

func TestDropsRecordsPastTheLimitWithALossRecord(t *testing.T) {
	lim := defaultLimits
	lim.records = 3
	l := start(t, lim)
	l.Begin("smtok-many")
	for i := range 5 {
		get(t, l.URL()+"/"+strconv.Itoa(i))
	}
	rs := l.Collect("smtok-many")
	require.Len(t, rs, 4)
	for i, r := range rs[:3] {
		assert.Equal(t, "/"+strconv.Itoa(i), r.Data["target"])
	}
	assert.Equal(t, observers.KindLoss, rs[3].Kind)
	assert.Equal(t, map[string]string{"reason": "records", "count": "2", "limit": "3"}, rs[3].Data)

	// Room is made by returning records.
	get(t, l.URL()+"/again")
	assert.Len(t, l.Collect("smtok-many"), 1)
}

func TestCloseReportsLossNoCollectReturned(t *testing.T) {
	lim := defaultLimits
	lim.records = 1
	l := start(t, lim)
	l.Begin("smtok-x")
	get(t, l.URL()+"/1")
	get(t, l.URL()+"/2")
	rs := l.Close()
	require.Len(t, rs, 2)
	assert.Equal(t, observers.KindConnection, rs[0].Kind)
	assert.Equal(t, observers.KindLoss, rs[1].Kind)
	assert.Equal(t, "smtok-x", rs[1].Token)
}

func TestCloseLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	l, err := listen(defaultLimits)
	require.NoError(t, err)
	l.Begin("smtok-leak")
	for range 3 {
		dial(t, hostPort(l.URL())) // silent, still open at Close
	}
	for range 3 {
		c := dial(t, hostPort(l.URL()))
		c.Write([]byte("GET /partial HTTP/1.1\r\nHost: x\r\n")) // head never ends
	}
	for range 3 {
		exchange(t, hostPort(l.URL()), "GET / HTTP/1.1\r\n\r\n")
	}
	assert.Len(t, l.Close(), 9)
	eventually(t, "goroutines back to "+strconv.Itoa(before), func() bool {
		return runtime.NumGoroutine() <= before
	})
}
