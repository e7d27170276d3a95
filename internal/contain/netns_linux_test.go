package contain_test

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
)

func TestNetNSIsLoopbackOnly(t *testing.T) {
	needLayer(t, "netns")
	r, code, stderr := run(t, wrap(t, childSpec(t, "net"), contain.Options{NetNS: true}))
	require.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Equal(t, []any{"lo"}, r["ifaces"])
	// The child tried 192.0.2.1 only after seeing lo alone.
	assert.Equal(t, "network is unreachable", r.str("egress"))
	nspid := strings.Fields(r.str("nspid"))
	require.Len(t, nspid, 2, "the server is in a pid namespace of its own (NSpid %q)", r.str("nspid"))
	assert.Equal(t, nspid[1], strconv.Itoa(int(r["pid"].(float64))), "its pid there is the one it sees")
}

func TestNetNSProxiesAllowedPorts(t *testing.T) {
	needLayer(t, "netns")
	allowed := serveHello(t)
	other := unusedPort(t)
	for _, landlock := range []bool{false, true} {
		o := contain.Options{NetNS: true, AllowPorts: []int{allowed}, Landlock: landlock}
		r, code, stderr := run(t, wrap(t, childSpec(t, "connect", "127.0.0.1:"+strconv.Itoa(allowed)), o))
		require.Equal(t, 0, code, "stderr: %s", stderr)
		assert.Equal(t, "", r.str("err"))
		assert.Equal(t, "hello", r.str("read"), "landlock %v: the harness's port through the proxy", landlock)

		r, _, _ = run(t, wrap(t, childSpec(t, "connect", "127.0.0.1:"+strconv.Itoa(other)), o))
		want := "connection refused" // nothing listens on it inside the namespace
		if landlock {
			want = "permission denied"
		}
		assert.Equal(t, want, r.str("err"), "landlock %v: a port that is not allowed", landlock)
	}
}

// TestNetNSTreeDiesWithShim kills the shim the harness started (as a
// harness's death would, through Pdeathsig): the server and the daemon it
// started in a session of its own die with the namespace, whichever thread
// the shims run on.
func TestNetNSTreeDiesWithShim(t *testing.T) {
	needLayer(t, "netns")
	for _, env := range [][]string{nil, {contain.OffMainEnv + "=1"}} {
		spec := childSpec(t, "daemon")
		marker := spec.Env[len(spec.Env)-1]
		spec.Env = append(env, spec.Env...)
		cmd, _ := start(t, wrap(t, spec, contain.Options{NetNS: true}))
		require.Eventually(t, func() bool { return len(marked(marker)) == 4 }, 5*time.Second, 10*time.Millisecond,
			"outer shim, inner shim, server and daemon (%v)", env)
		require.NoError(t, syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)) // the leader only, not its group
		assert.Eventually(t, func() bool { return len(marked(marker)) == 0 }, 5*time.Second, 10*time.Millisecond,
			"left alive (%v): %v", env, marked(marker))
	}
}

// TestNetNSStopsOnSIGTERM signals the group as launch.Stop does: the
// server ends, and the shims exit with its status.
func TestNetNSStopsOnSIGTERM(t *testing.T) {
	needLayer(t, "netns")
	cmd, _ := start(t, wrap(t, childSpec(t, "daemon"), contain.Options{NetNS: true}))
	require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		assert.Equal(t, 128+int(syscall.SIGTERM), cmd.ProcessState.ExitCode())
	case <-time.After(5 * time.Second):
		t.Fatal("the wrapped server did not end within 5s of SIGTERM")
	}
}
