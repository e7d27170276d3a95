package contain_test

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/internal/seccomp"
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
	obs, err := egress.Take(func(sink seccomp.Sink) (seccomp.Supervisor, error) { return hand.Complete(proc.Pid(), allow, sink) })
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
			policy := seccomp.Ports(allowed, udpPort)
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
	obs, err := egress.Take(func(sink seccomp.Sink) (seccomp.Supervisor, error) { return hand.Complete(proc.Pid(), nil, sink) })
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
	obs, err := egress.Take(func(sink seccomp.Sink) (seccomp.Supervisor, error) { return hand.Complete(1, nil, sink) })
	assert.NoError(t, err)
	assert.Nil(t, obs)
}

// TestEgressRawCalls covers sendmmsg and an address the supervisor cannot
// read (denied, recorded as unreadable).
func TestEgressRawCalls(t *testing.T) {
	needLayer(t, "seccomp-notify")
	udpPort, datagrams := serveUDP(t)
	spec := childSpec(t, "raw", "127.0.0.1:"+strconv.Itoa(udpPort))
	proc, obs := startObserved(t, spec, contain.Options{Egress: true}, seccomp.Ports(udpPort))
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

func init() {
	// attempts waits for a line on stdin, then opens files for writing
	// (relative, through a directory descriptor, outside the sandbox in
	// args[0], with openat2, and with open and creat where they exist),
	// opens for reading the same ways, signals pid args[1] with 0 and
	// SIGWINCH, itself with SIGWINCH, and a sleeper child of its own with
	// SIGKILL through a pidfd; it prints each error and the sleeper's pid,
	// and sleeps.
	children["attempts"] = func(args []string) int {
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		r := result{}
		open := func(key string, dirfd int, path string, flags int) {
			fd, err := unix.Openat(dirfd, path, flags|unix.O_CLOEXEC, 0o600)
			if err == nil {
				unix.Close(fd)
			}
			r[key] = errText(err)
		}
		open("rel", unix.AT_FDCWD, "rel-write", unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC)
		open("read", unix.AT_FDCWD, "rel-write", unix.O_RDONLY)
		dir, err := unix.Open(".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return emit(result{"err": errText(err)})
		}
		open("at", dir, "at-write", unix.O_RDWR|unix.O_CREAT|unix.O_APPEND)
		open("at-read", dir, "at-write", unix.O_RDONLY)
		unix.Close(dir)
		open("outside", unix.AT_FDCWD, args[0]+"/outside", unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL)
		openat2 := func(key, path string, flags uint64) {
			how := &unix.OpenHow{Flags: flags | unix.O_CLOEXEC}
			if flags&unix.O_CREAT != 0 {
				how.Mode = 0o600 // a mode without O_CREAT is EINVAL
			}
			fd, err := unix.Openat2(unix.AT_FDCWD, path, how)
			if err == nil {
				unix.Close(fd)
			}
			r[key] = errText(err)
		}
		openat2("openat2", "o2-write", unix.O_WRONLY|unix.O_CREAT)
		openat2("openat2-read", "rel-write", unix.O_RDONLY)
		if runtime.GOARCH == "amd64" {
			// open(2) and creat(2) by number: x86_64 only
			legacy := func(key string, nr uintptr, path string, flags uintptr) {
				p, _ := unix.BytePtrFromString(path)
				fd, _, e := unix.Syscall(nr, uintptr(unsafe.Pointer(p)), flags, 0o600)
				if e == 0 {
					unix.Close(int(fd))
				}
				r[key] = errText(errnoErr(e))
			}
			legacy("open", 2, "legacy-open", unix.O_WRONLY|unix.O_CREAT|unix.O_CLOEXEC)
			legacy("open-read", 2, "legacy-open", unix.O_RDONLY|unix.O_CLOEXEC)
			legacy("creat", 85, "legacy-creat", 0o600)
		}
		harness, _ := strconv.Atoi(args[1])
		r["sig0"] = errText(unix.Kill(harness, 0))
		r["winch"] = errText(unix.Kill(harness, unix.SIGWINCH))
		r["self"] = errText(unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGWINCH)) // ignored by the runtime
		exe, _ := os.Executable()
		cmd := exec.Command(exe, childArg, "sleep")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr // no /dev/null opened for writing
		if err := cmd.Start(); err != nil {
			return emit(result{"err": errText(err)})
		}
		r["sleeper"] = cmd.Process.Pid
		if pidfd, err := unix.PidfdOpen(cmd.Process.Pid, 0); err != nil {
			r["pidfd"] = errText(err)
			_ = cmd.Process.Kill()
		} else {
			r["pidfd"] = errText(unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0))
			unix.Close(pidfd)
		}
		_ = cmd.Wait()
		emit(r)
		time.Sleep(time.Hour) // until the harness's SIGTERM
		return 0
	}
}

// TestEgressAttempts runs a server that opens files for writing and for
// reading and sends signals under the seccomp layer, without and with
// namespaces: exactly its opens for writing (with absolute paths) and its
// signals to other processes are recorded, as "continue"; what each call
// returned is the same as under the shim without the filter.
func TestEgressAttempts(t *testing.T) {
	needLayer(t, "seccomp-notify")
	for _, ns := range []bool{false, true} {
		t.Run("netns="+strconv.FormatBool(ns), func(t *testing.T) {
			if ns {
				needLayer(t, "netns")
			}
			harness := strconv.Itoa(os.Getpid())
			outside := t.TempDir() // outside the sandbox: Landlock refuses the write
			attempt := func(egressOn bool) (launch.Spec, result, *egress.Observer, *launch.Process) {
				spec := childSpec(t, "attempts", outside, harness)
				o := contain.Options{Egress: egressOn, NetNS: ns, SandboxTop: spec.Dir, Landlock: true}
				var proc *launch.Process
				var obs *egress.Observer
				if egressOn {
					proc, obs = startObserved(t, spec, o, nil)
					obs.Begin("probe-1")
				} else {
					w, hand, err := contain.WrapEgress(spec, o)
					require.NoError(t, err)
					require.Nil(t, hand, "no filter, nothing to hand off, nothing observed")
					proc, err = launch.Start(w)
					require.NoError(t, err)
					t.Cleanup(func() { proc.Stop(0, time.Second) })
				}
				_, err := proc.Input().Write([]byte("go\n"))
				require.NoError(t, err)
				return spec, readResult(t, proc), obs, proc
			}

			_, plain, _, _ := attempt(false)
			spec, r, obs, proc := attempt(true)
			sleeper := r["sleeper"]
			delete(r, "sleeper")
			delete(plain, "sleeper")
			assert.Equal(t, plain, r, "the observer changes no call's outcome")
			for _, k := range []string{"rel", "read", "at", "at-read", "openat2", "openat2-read", "pidfd", "self"} {
				assert.Equal(t, "", r.str(k), k)
			}
			iso := contain.Probe().For(contain.Options{Landlock: true, NetNS: ns})
			if iso.LandlockFS.Applied {
				assert.Equal(t, "permission denied", r.str("outside"), "Landlock refuses the write outside")
			}
			if !ns && !iso.LandlockScope.Applied {
				assert.Equal(t, "", r.str("winch"), "the signal reached the harness (ignored by it)")
			} else {
				assert.NotEqual(t, "", r.str("winch"), "the harness is out of the server's reach")
			}

			rs := obs.Collect("probe-1")
			for _, rec := range rs {
				t.Log(rec.Summary)
				assert.Equal(t, "probe-1", rec.Token)
			}
			type open struct{ syscall, path, flags string }
			var opens []open
			for _, rec := range find(rs, map[string]string{"op": "open-write"}) {
				assert.Equal(t, observers.KindProcess, rec.Kind)
				assert.Equal(t, "continue", rec.Data["verdict"])
				assert.Equal(t, "", rec.Data["error"])
				opens = append(opens, open{rec.Data["syscall"], rec.Data["path"], rec.Data["flags"]})
			}
			want := []open{
				{"openat", spec.Dir + "/rel-write", "O_WRONLY|O_CREAT|O_TRUNC"},
				{"openat", spec.Dir + "/at-write", "O_RDWR|O_CREAT|O_APPEND"},
				{"openat", outside + "/outside", "O_WRONLY|O_CREAT|O_EXCL"},
				{"openat2", spec.Dir + "/o2-write", "O_WRONLY|O_CREAT"},
			}
			if runtime.GOARCH == "amd64" {
				want = append(want, open{"open", spec.Dir + "/legacy-open", "O_WRONLY|O_CREAT"}, open{"creat", spec.Dir + "/legacy-creat", "O_WRONLY|O_CREAT|O_TRUNC"})
			}
			assert.Equal(t, want, opens, "exactly the opens for writing, in order, with absolute paths")
			rel := find(rs, map[string]string{"op": "open-write", "given": "rel-write"})
			require.Len(t, rel, 1)
			at := find(rs, map[string]string{"op": "open-write", "given": "at-write"})
			require.Len(t, at, 1)
			assert.NotEmpty(t, at[0].Data["dirfd"])

			type sig struct{ syscall, target, signal string }
			var sigs []sig
			for _, rec := range find(rs, map[string]string{"op": "signal"}) {
				assert.Equal(t, observers.KindProcess, rec.Kind)
				assert.Equal(t, "continue", rec.Data["verdict"])
				target := rec.Data["target"]
				if rec.Data["syscall"] == "pidfd_send_signal" {
					assert.True(t, strings.HasPrefix(target, "pidfd:"), target)
					target = "pidfd"
					if !ns {
						assert.Equal(t, strconv.Itoa(int(sleeper.(float64))), rec.Data["target_pid"])
					}
				}
				sigs = append(sigs, sig{rec.Data["syscall"], target, rec.Data["signal"]})
			}
			assert.Equal(t, []sig{{"kill", harness, "0"}, {"kill", harness, "SIGWINCH"}, {"pidfd_send_signal", "pidfd", "SIGKILL"}}, sigs,
				"exactly the signals to other processes; none to itself")

			// SIGTERM at once: with namespaces the resident shim passes it on
			rep := proc.Stop(0, 5*time.Second)
			assert.Equal(t, []string{"SIGTERM"}, rep.Signalled)
			late := obs.Close()
			for _, rec := range late {
				t.Log("late: ", rec.Summary)
			}
			assert.Empty(t, find(late, map[string]string{"op": "signal"}), "the shim's own signals are not the server's")
			assert.Empty(t, find(late, map[string]string{"op": "open-write"}))
			assert.Empty(t, find(late, map[string]string{"op": "loss"}))
		})
	}
}
