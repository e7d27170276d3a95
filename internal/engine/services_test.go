package engine_test

import (
	"bufio"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// hostSocket is a unix socket outside the sandbox that answers every
// connection with a secret line, standing for a database's or a container
// engine's socket.
type hostSocket struct {
	path, secret string
	arrived      chan struct{}
}

func newHostSocket(t *testing.T, dir string) *hostSocket {
	h := &hostSocket{path: filepath.Join(dir, "host.sock"), secret: "host-socket-secret-" + filepath.Base(t.TempDir()), arrived: make(chan struct{}, 1)}
	h.serve(t, "unix", h.path)
	return h
}

// serve listens on addr and answers every connection with the secret.
func (h *hostSocket) serve(t *testing.T, network, addr string) {
	ln, err := net.Listen(network, addr)
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.SetDeadline(time.Now().Add(2 * time.Second))
			_, _ = c.Write([]byte(h.secret + "\n"))
			c.Close()
			select {
			case h.arrived <- struct{}{}:
			default:
			}
		}
	}()
}

func (h *hostSocket) reached() bool {
	select {
	case <-h.arrived:
		return true
	case <-time.After(50 * time.Millisecond):
		return false
	}
}

// teller hears the escape fixture's outcome lines (its -tell): a loopback
// listener the server may reach only as a declared service.
type teller struct {
	addr string
	mu   sync.Mutex
	text strings.Builder
}

func newTeller(t *testing.T) *teller {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	tl := &teller{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(3 * time.Second))
				sc := bufio.NewScanner(c)
				sc.Buffer(make([]byte, 64<<10), 1<<20)
				for sc.Scan() {
					tl.mu.Lock()
					tl.text.WriteString(sc.Text() + "\n")
					tl.mu.Unlock()
				}
			}()
		}
	}()
	return tl
}

// lines returns every line heard that starts with "escape <what>: ".
func (tl *teller) lines(what string) []string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var out []string
	for _, l := range strings.Split(tl.text.String(), "\n") {
		if strings.HasPrefix(l, "escape "+what+": ") {
			out = append(out, l)
		}
	}
	return out
}

func (tl *teller) all() string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.text.String()
}

// waysPack makes one tool call, so the escape fixture tries its ways out
// once, in the probe WAYS-OUT.
var waysPack = packs.Pack{Name: "ways", Doc: "one tool call to the escape fixture", Probes: []packs.Probe{{
	ID: "WAYS-OUT", Name: "ways-out", Doc: "calls read_note once; the escape fixture tries every way out",
	Run: func(p *packs.Pass) { _, _ = p.Call("read_note", map[string]any{"name": p.Token}) },
}}}

// waysRun runs waysPack against the escape fixture with extra flags.
func waysRun(t *testing.T, mutate func(*engine.Config), extra ...string) *report.Report {
	return observedRun(t, "escape", func(c *engine.Config) {
		c.Catalog, c.Packs = []packs.Pack{waysPack}, nil
		if mutate != nil {
			mutate(c)
		}
	}, extra...)
}

// unixRun runs the escape fixture with a host unix socket to connect to
// and services declared.
func unixRun(t *testing.T, sock *hostSocket, tl *teller, services ...string) *report.Report {
	return waysRun(t, func(c *engine.Config) { c.Services = append(services, "tcp:"+tl.addr) },
		"-unix-socket="+sock.path, "-tell="+tl.addr)
}

// TestHostUnixSocketRefused: a contained server that connects to a unix
// socket outside the sandbox is refused, the secret behind it never
// reaches the server, and the attempt is on record with the path, in the
// probe that caused it. The run stays STANDARD and the isolation line says
// unix sockets are the sandbox's only. The declared tcp service (the
// teller) is reached through the shim's proxy and named in the line.
func TestHostUnixSocketRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a contained server refused a host unix socket")
	}
	sock, tl := newHostSocket(t, t.TempDir()), newTeller(t)
	rep := unixRun(t, sock, tl)
	iso := rep.Sandbox.Isolation
	if !strings.Contains(iso, "unix=sandbox-only") {
		t.Skipf("unix sockets are not judged here (no seccomp-notify): %s", iso)
	}
	assert.Equal(t, report.Standard, rep.Class, "%v", rep.ClassReasons)
	assert.Contains(t, iso, "services=tcp:"+tl.addr)
	assert.False(t, sock.reached(), "the contained server reached the host socket")
	got := tl.lines("unix socket")
	require.NotEmpty(t, got, "the declared tcp service heard nothing: %q", tl.all())
	for _, l := range got {
		assert.NotContains(t, l, "succeeded", "the host socket's connect was let through")
		assert.NotContains(t, l, sock.secret)
	}
	r := find(probeRecords(rep, "WAYS-OUT"), observers.KindSocket, func(r observers.Record) bool {
		return r.Data["family"] == "unix" && strings.HasSuffix(r.Data["addr"], "/host.sock")
	})
	require.NotNil(t, r, "the refused connect is not on record: %v", probeRecords(rep, "WAYS-OUT"))
	assert.Equal(t, "deny", r.Data["verdict"])
	assert.Contains(t, []string{"refused (outside the sandbox)", "no such socket"}, r.Data["why"])
}

// TestHostUnixSocketDeclared: the same socket declared (sandbox.services)
// is reached, the secret comes back, the connect is on record as allowed
// and the isolation line names the allowance; the run stays STANDARD.
func TestHostUnixSocketDeclared(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a declared host unix socket reached")
	}
	sock, tl := newHostSocket(t, t.TempDir()), newTeller(t)
	rep := unixRun(t, sock, tl, "unix:"+sock.path)
	iso := rep.Sandbox.Isolation
	if !strings.Contains(iso, "unix=sandbox-only") {
		t.Skipf("unix sockets are not judged here (no seccomp-notify): %s", iso)
	}
	assert.Equal(t, report.Standard, rep.Class, "%v", rep.ClassReasons)
	// the path as the report shows it ({cwd} when the test runs there)
	assert.Regexp(t, `services=unix:\S*/`+regexp.QuoteMeta(filepath.Base(filepath.Dir(sock.path)))+`/host\.sock\+tcp:`+regexp.QuoteMeta(tl.addr), iso)
	assert.True(t, sock.reached(), "the declared socket was not reached")
	got := tl.lines("unix socket")
	require.NotEmpty(t, got, "the declared tcp service heard nothing: %q", tl.all())
	assert.Contains(t, got[0], "succeeded")
	assert.Contains(t, got[0], sock.secret)
	r := find(probeRecords(rep, "WAYS-OUT"), observers.KindSocket, func(r observers.Record) bool {
		return r.Data["family"] == "unix" && strings.HasSuffix(r.Data["addr"], "/host.sock")
	})
	require.NotNil(t, r, "the declared connect is not on record")
	assert.Equal(t, "allow", r.Data["verdict"])
}
