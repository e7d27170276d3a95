package contain_test

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/observers/egress"
)

// serveUDP listens on a loopback UDP port and returns it with a channel
// of the datagrams it receives.
func serveUDP(t *testing.T) (int, <-chan string) {
	t.Helper()
	pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	require.NoError(t, err)
	t.Cleanup(func() { pc.Close() })
	got := make(chan string, 16)
	go func() {
		buf := make([]byte, 100)
		for {
			n, _, err := pc.ReadFromUDP(buf)
			if err != nil {
				return
			}
			got <- string(buf[:n])
		}
	}()
	return pc.LocalAddr().(*net.UDPAddr).Port, got
}

// startObserved starts spec wrapped with o through launch, as the engine
// does, and completes the egress hand-off. Cleanup stops both.
func startObserved(t *testing.T, spec launch.Spec, o contain.Options, allow func(net.Addr) bool) (*launch.Process, *egress.Observer) {
	t.Helper()
	w, hand, err := contain.WrapEgress(spec, o)
	require.NoError(t, err)
	require.NotNil(t, hand, "seccomp-notify applies (checked by the caller)")
	proc, err := launch.Start(w)
	if err != nil {
		hand.Cancel()
	}
	require.NoError(t, err)
	t.Cleanup(func() { proc.Stop(time.Second, time.Second) })
	obs, err := hand.Complete(proc.Pid(), allow)
	require.NoError(t, err, "server log: %s", proc.Log().Tail(1000))
	require.NotNil(t, obs)
	t.Cleanup(func() { obs.Close() })
	return proc, obs
}

// readResult reads the child's JSON line (10 s at most).
func readResult(t *testing.T, proc *launch.Process) result {
	t.Helper()
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(proc.Messages()).ReadString('\n')
		lines <- line
	}()
	select {
	case line := <-lines:
		var r result
		require.NoError(t, json.Unmarshal([]byte(line), &r), "line %q, server log: %s", line, proc.Log().Tail(1000))
		return r
	case <-time.After(10 * time.Second):
		t.Fatalf("no result within 10s; server log: %s", proc.Log().Tail(1000))
		return nil
	}
}

// find returns the records whose Data has every key and value of want.
func find(rs []observers.Record, want map[string]string) []observers.Record {
	var out []observers.Record
next:
	for _, r := range rs {
		for k, v := range want {
			if r.Data[k] != v {
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}

// TestEgressObserved runs a server under the seccomp layer, without and
// with network namespaces: it reaches the allowed loopback port, a second
// loopback port the policy treats as outside fails with ENETUNREACH, its
// datagrams and its exec are recorded, all attributed to the open probe.
func TestEgressObserved(t *testing.T) {
	needLayer(t, "seccomp-notify")
	for _, ns := range []bool{false, true} {
		t.Run("netns="+strconv.FormatBool(ns), func(t *testing.T) {
			if ns {
				needLayer(t, "netns")
			}
			allowed := serveHello(t)
			outside := serveHello(t) // listening, but the policy says no
			udpPort, datagrams := serveUDP(t)
			before := runtime.NumGoroutine()
			policy := egress.Ports(allowed, udpPort)
			spec := childSpec(t, "egress", "127.0.0.1:"+strconv.Itoa(allowed), "127.0.0.1:"+strconv.Itoa(outside), "127.0.0.1:"+strconv.Itoa(udpPort))
			o := contain.Options{Egress: true, NetNS: ns, AllowPorts: []int{allowed}, SandboxTop: spec.Dir, Landlock: true}
			proc, obs := startObserved(t, spec, o, policy)

			obs.Begin("probe-1")
			_, err := proc.Input().Write([]byte("go\n"))
			require.NoError(t, err)
			r := readResult(t, proc)
			assert.Equal(t, "", r.str("allowed"))
			assert.Equal(t, "hello", r.str("read"))
			assert.Equal(t, "network is unreachable", r.str("denied"), "the outside port answers ENETUNREACH")
			assert.Equal(t, "", r.str("sendto"))
			assert.Equal(t, "", r.str("sendmsg"))
			assert.Equal(t, "", r.str("exec"))
			assert.Equal(t, "function not implemented", r.str("io_uring"), "io_uring_setup is denied")
			if !ns {
				// inside the namespace the datagrams reach the namespace's own lo
				for _, want := range []string{"sendto", "sendmsg"} {
					select {
					case got := <-datagrams:
						assert.Equal(t, want, got)
					case <-time.After(5 * time.Second):
						t.Fatalf("datagram %q not received", want)
					}
				}
			}

			rs := obs.Collect("probe-1")
			for _, r := range rs {
				t.Log(r.Summary)
				assert.Equal(t, "probe-1", r.Token)
				assert.Equal(t, "egress", r.Observer)
			}
			port := func(p int) string { return strconv.Itoa(p) }
			assert.Len(t, find(rs, map[string]string{"op": "connect", "family": "inet", "addr": "127.0.0.1", "port": port(allowed), "verdict": "allow"}), 1)
			denied := find(rs, map[string]string{"op": "connect", "addr": "127.0.0.1", "port": port(outside), "verdict": "deny"})
			require.Len(t, denied, 1)
			assert.Equal(t, observers.KindSocket, denied[0].Kind)
			assert.Contains(t, denied[0].Summary, "ENETUNREACH")
			assert.Len(t, find(rs, map[string]string{"op": "sendto", "port": port(udpPort), "verdict": "allow"}), 1)
			assert.Len(t, find(rs, map[string]string{"op": "sendmsg", "port": port(udpPort), "verdict": "allow"}), 1)
			execs := find(rs, map[string]string{"op": "exec", "path": "/bin/true"})
			require.Len(t, execs, 1)
			assert.Equal(t, observers.KindProcess, execs[0].Kind)
			assert.Equal(t, `["/bin/true","x"]`, execs[0].Data["argv"])
			assert.Empty(t, obs.Collect("probe-1"), "a record is returned once")

			rep := proc.Stop(time.Second, time.Second)
			assert.Equal(t, "exit status 0", rep.Status)
			late := obs.Close()
			exe, _ := os.Executable()
			start := find(append(rs, late...), map[string]string{"op": "exec", "start": "true"})
			require.Len(t, start, 1, "the server's own start")
			assert.Equal(t, exe, start[0].Data["path"])
			assert.Equal(t, "", start[0].Token, "the start is not the probe's doing")
			assert.Empty(t, find(late, map[string]string{"op": "loss"}))
			assert.Eventually(t, func() bool { return runtime.NumGoroutine() <= before+2 }, 5*time.Second, 10*time.Millisecond,
				"goroutines: %d before, %d after", before, runtime.NumGoroutine())
		})
	}
}

// TestEgressFailsClosed: once the harness stops answering (it closed the
// observer, or died), the server's connect fails with ENOSYS instead of
// going out.
func TestEgressFailsClosed(t *testing.T) {
	needLayer(t, "seccomp-notify")
	allowed := serveHello(t)
	spec := childSpec(t, "egress", "127.0.0.1:"+strconv.Itoa(allowed), "127.0.0.1:"+strconv.Itoa(allowed), "127.0.0.1:9")
	proc, obs := startObserved(t, spec, contain.Options{Egress: true}, nil)
	// Close once the server runs: before, its own exec fails (ENOSYS, exit 126).
	require.Eventually(t, func() bool {
		return len(find(obs.Collect(""), map[string]string{"start": "true"})) == 1
	}, 5*time.Second, 5*time.Millisecond)
	obs.Close()
	_, err := proc.Input().Write([]byte("go\n"))
	require.NoError(t, err)
	r := readResult(t, proc)
	assert.Equal(t, "function not implemented", r.str("allowed"))
	assert.Equal(t, "function not implemented", r.str("sendto"))
	assert.Equal(t, "function not implemented", r.str("exec"))
}

// TestEgressHandoffCancelled: a shim whose harness never takes the
// listener does not run the server.
func TestEgressHandoffCancelled(t *testing.T) {
	needLayer(t, "seccomp-notify")
	spec := childSpec(t, "env")
	w, hand, err := contain.WrapEgress(spec, contain.Options{Egress: true})
	require.NoError(t, err)
	proc, err := launch.Start(w)
	require.NoError(t, err)
	defer proc.Stop(time.Second, time.Second)
	hand.Cancel()
	require.True(t, proc.WaitExit(10*time.Second))
	assert.Equal(t, "exit status 125", proc.ExitStatus())
	assert.Eventually(t, func() bool {
		return strings.Contains(proc.Log().Tail(1000), "sealmark-contain: seccomp: seccomp hand-off")
	}, 5*time.Second, 5*time.Millisecond, "the shim says why; log: %s", proc.Log().Tail(1000))
	obs, err := hand.Complete(proc.Pid(), nil)
	assert.Error(t, err, "a cancelled hand-off cannot complete")
	assert.Nil(t, obs)
}

func TestWrapEgressNeedsWrapEgress(t *testing.T) {
	_, err := contain.Wrap(childSpec(t, "env"), contain.Options{Egress: true})
	assert.ErrorContains(t, err, "WrapEgress")

	// Without Egress there is nothing to hand off.
	_, hand, err := contain.WrapEgress(childSpec(t, "env"), contain.Options{})
	require.NoError(t, err)
	assert.Nil(t, hand)
	obs, err := hand.Complete(1, nil)
	assert.NoError(t, err)
	assert.Nil(t, obs)
}

// TestEgressRawCalls covers sendmmsg and an address the supervisor cannot
// read (denied, recorded as unreadable).
func TestEgressRawCalls(t *testing.T) {
	needLayer(t, "seccomp-notify")
	udpPort, datagrams := serveUDP(t)
	spec := childSpec(t, "raw", "127.0.0.1:"+strconv.Itoa(udpPort))
	proc, obs := startObserved(t, spec, contain.Options{Egress: true}, egress.Ports(udpPort))
	r := readResult(t, proc)
	assert.Equal(t, "", r.str("sendmmsg"))
	assert.EqualValues(t, 1, r["sent"])
	assert.Equal(t, "network is unreachable", r.str("badptr"))
	select {
	case got := <-datagrams:
		assert.Equal(t, "sendmmsg", got)
	case <-time.After(5 * time.Second):
		t.Fatal("the sendmmsg datagram was not received")
	}
	proc.Stop(time.Second, time.Second)
	rs := obs.Close()
	assert.Len(t, find(rs, map[string]string{"op": "sendmmsg", "addr": "127.0.0.1", "port": strconv.Itoa(udpPort), "verdict": "allow"}), 1)
	bad := find(rs, map[string]string{"op": "connect", "family": "unreadable", "verdict": "deny"})
	require.Len(t, bad, 1)
	assert.Contains(t, bad[0].Summary, "address unreadable")
}
