package contain_test

import (
	"bufio"
	"context"
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
)

// TestNetNSReverseReachesTheServer: a server listening inside its
// loopback-only namespace is reached on the host's loopback at the same
// port through the shim; without Reverse the port is dead on the host.
func TestNetNSReverseReachesTheServer(t *testing.T) {
	needLayer(t, "netns")
	for _, reverse := range []bool{true, false} {
		port := unusedPort(t)
		addr := "127.0.0.1:" + strconv.Itoa(port)
		o := contain.Options{NetNS: true, AllowPorts: []int{port}, Landlock: true}
		if reverse {
			o.Reverse = []int{port}
		}
		spec := childSpec(t, "serve", addr)
		cmd := command(context.Background(), wrap(t, spec, o))
		var stderr lockedBuffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		var got string
		wait := 5 * time.Second
		if !reverse {
			wait = time.Second // the server is up well before: it would have answered
		}
		deadline := time.Now().Add(wait)
		for got == "" && time.Now().Before(deadline) {
			if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
				_ = c.SetDeadline(time.Now().Add(2 * time.Second))
				got, _ = bufio.NewReader(c).ReadString('\n')
				c.Close()
			}
			if got == "" {
				time.Sleep(20 * time.Millisecond)
			}
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		if reverse {
			assert.Equal(t, "served from lo\n", got, "the server, inside a namespace with only lo, through the shim; stderr: %s", stderr.String())
		} else {
			assert.Empty(t, got, "without Reverse nothing on the host answers for the server")
		}
	}
}

// TestNetNSLingersUntilTheLifelineCloses: a server that exits while its
// daemon lives on has its status reported at once (the harness sees it
// end), the daemon stays until the harness closes the lifeline, then the
// namespace ends with it. Without a lifeline the namespace ends with the
// server.
func TestNetNSLingersUntilTheLifelineCloses(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a daemon outliving its server until the lifeline closes")
	}
	needLayer(t, "netns")
	for _, lifeline := range []bool{true, false} {
		lingers(t, lifeline)
	}
}

// TestLingerOffTheMainThread: the same, with the shims on a thread other
// than their main one, as a Go program's main goroutine may be once it has
// moved between threads (more often on a loaded machine). A Pdeathsig is
// kept per thread: the inner shim must drop the one it lingers without on
// the thread that holds it, or the outer shim's exit kills the namespace,
// and the daemon with it, before the harness can see it.
func TestLingerOffTheMainThread(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the same, with the shims off their main thread")
	}
	needLayer(t, "netns")
	lingers(t, true, contain.OffMainEnv+"=1")
}

// lingers runs the linger child wrapped with NetNS, with a lifeline or
// not, env added to its environment, and checks what outlives it.
func lingers(t *testing.T, lifeline bool, env ...string) {
	t.Helper()
	spec := childSpec(t, "linger")
	marker := spec.Env[len(spec.Env)-1]
	spec.Env = append(env, spec.Env...)
	o := contain.Options{NetNS: true}
	var w *os.File
	if lifeline {
		r, wr, err := os.Pipe()
		require.NoError(t, err)
		o.Lifeline, w = r, wr
		defer r.Close()
		defer wr.Close()
	}
	r, code, stderr := run(t, wrap(t, spec, o))
	require.Equal(t, 7, code, "the server's status comes back at once; stderr: %s", stderr)
	require.NotZero(t, r["daemon"], "the daemon started")
	if !lifeline {
		assert.Eventually(t, func() bool { return len(marked(marker)) == 0 }, 5*time.Second, 10*time.Millisecond,
			"without a lifeline the namespace ends with the server: %v", marked(marker))
		return
	}
	time.Sleep(200 * time.Millisecond)
	assert.Len(t, marked(marker), 2, "the lingering inner shim and the daemon are alive for the harness to see; stderr: %s", stderr)
	w.Close()
	assert.Eventually(t, func() bool { return len(marked(marker)) == 0 }, 5*time.Second, 10*time.Millisecond,
		"closing the lifeline ends the namespace: %v", marked(marker))
}
