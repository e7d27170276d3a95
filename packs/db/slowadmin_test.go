package db

import (
	"context"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs"
)

// slowAdminDelay is how long slowProxy holds each connection before it
// reaches PostgreSQL: past the 5 s connect timeout and the oracle's 10 s
// the db pack had, as a machine at a load of 56 made the harness's own
// connection take.
const slowAdminDelay = 11 * time.Second

// slowProxy forwards loopback connections to upstream, each only after
// delay, until the test ends, and returns its port.
func slowProxy(t *testing.T, upstream string, delay time.Duration) uint16 {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	done := make(chan struct{})
	t.Cleanup(func() {
		close(done)
		l.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				select {
				case <-done:
					return
				case <-time.After(delay):
				}
				up, err := net.Dial("tcp", upstream)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { <-done; c.Close(); up.Close() }()
				go func() { _, _ = io.Copy(up, c); up.Close() }()
				_, _ = io.Copy(c, up)
			})
		}
	})
	return uint16(l.Addr().(*net.TCPAddr).Port)
}

// TestOracleWaitsOutASlowDatabase: the harness's own admin connection is
// the harness's, never the server's verdict, so a PostgreSQL slow to
// accept it (a loaded machine) delays the probe but does not leave it
// inconclusive.
func TestOracleWaitsOutASlowDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out a PostgreSQL slowed by 11 s")
	}
	admin, _ := adminOrSkip(t)
	ctx := context.Background()
	slow, err := ParseAdmin(adminDSN())
	require.NoError(t, err)
	slow.Port = slowProxy(t, net.JoinHostPort(admin.Host, strconv.Itoa(int(admin.Port))), slowAdminDelay)

	d, err := Create(ctx, admin)
	require.NoError(t, err)
	t.Cleanup(func() {
		d.admin = admin
		_ = d.Drop(context.Background())
	})
	d.admin = slow

	p := &packs.Pass{Ctx: ctx, Probe: &readOnlyEscape}
	conn := oracle(p, d)
	v, reason, _, _ := p.Outcome()
	require.NotNil(t, conn, "the harness's own connection through a slow PostgreSQL: %s %s", v, reason)
	defer conn.Close(ctx)
	found, err := takeRow(p, conn, "no such row")
	require.NoError(t, err)
	require.False(t, found)
}
