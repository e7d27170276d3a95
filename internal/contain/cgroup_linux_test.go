package contain_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/internal/seccomp"
	"github.com/sealmark/sealmark/observers/egress"
)

// noLeafLeft fails the test if a cgroup leaf named after this process is
// still there when it ends (removing it, so one failure does not leak).
func noLeafLeft(t *testing.T) {
	t.Helper()
	home, err := contain.CgroupHome()
	if err != nil {
		return
	}
	t.Cleanup(func() {
		entries, _ := os.ReadDir(home)
		prefix := "sealmark-" + strconv.Itoa(os.Getpid()) + "-"
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), prefix) {
				path := filepath.Join(home, e.Name())
				t.Errorf("cgroup leaf left behind: %s", path)
				_ = os.WriteFile(filepath.Join(path, "cgroup.kill"), []byte("1"), 0)
				time.Sleep(50 * time.Millisecond)
				_ = unix.Rmdir(path)
			}
		}
	})
}

// startInLeaf wraps spec with o (Cgroup on) and starts it through launch,
// as the engine does. Cleanup stops it and removes the leaf.
func startInLeaf(t *testing.T, spec launch.Spec, o contain.Options) (*launch.Process, *contain.Cgroup) {
	t.Helper()
	o.Cgroup = true
	w, hand, err := contain.WrapEgress(spec, o)
	require.NoError(t, err)
	cg := hand.Cgroup()
	require.NotNil(t, cg, "the cgroup layer applies (checked by the caller)")
	require.Positive(t, w.CgroupFD)
	proc, err := launch.Start(w)
	if err != nil {
		hand.Cancel()
	}
	require.NoError(t, err)
	t.Cleanup(func() {
		proc.Stop(0, time.Second)
		_, _ = cg.Remove()
	})
	_, err = egress.Take(func(sink seccomp.Sink) (seccomp.Supervisor, error) { return hand.Complete(proc.Pid(), nil, sink) })
	require.NoError(t, err)
	return proc, cg
}

// TestCgroupLeaf: a server that double-forks a daemon into a session of
// its own is contained by the leaf: the daemon outlives the process
// group's stop, is still listed as a member, dies with Remove, and the
// leaf is gone afterwards. With namespaces the shims and the server are
// all members too.
func TestCgroupLeaf(t *testing.T) {
	needLayer(t, "cgroup")
	noLeafLeft(t)
	for _, ns := range []bool{false, true} {
		t.Run("netns="+strconv.FormatBool(ns), func(t *testing.T) {
			if ns {
				needLayer(t, "netns")
			}
			spec := childSpec(t, "daemon")
			marker := spec.Env[len(spec.Env)-1]
			proc, cg := startInLeaf(t, spec, contain.Options{NetNS: ns})
			r := readResult(t, proc)
			require.Empty(t, r.str("err"))

			members, err := cg.Members()
			require.NoError(t, err)
			t.Logf("leaf %s: members %v", cg.Path(), members)
			require.Contains(t, members, proc.Pid(), "the shim (or the server it became) started in the leaf")
			// A process's environ can be unreadable for a moment (an exec
			// in flight on a loaded machine): look again until a deadline.
			inTree := marked(marker)
			for deadline := time.Now().Add(5 * time.Second); len(inTree) < 2 && time.Now().Before(deadline); inTree = marked(marker) {
				time.Sleep(20 * time.Millisecond)
			}
			require.GreaterOrEqual(t, len(inTree), 2, "the server and its daemon (and, with namespaces, the shims)")
			for _, pid := range inTree {
				assert.Contains(t, members, pid, "every marked process is a member")
			}
			daemon := hostPid(inTree, int(r["daemon"].(float64)))
			require.NotZero(t, daemon, "the daemon among %v", inTree)
			pfd, err := unix.PidfdOpen(daemon, 0)
			require.NoError(t, err)
			defer unix.Close(pfd)

			proc.Stop(0, time.Second)
			if !ns {
				// The group's stop does not reach a daemon in a session of
				// its own (in a namespace, the shim's end kills it).
				assert.False(t, exited(pfd, 0), "the setsid daemon outlived the process group's stop")
				members, _ = cg.Members()
				assert.Equal(t, []int{daemon}, members, "and is still a member")
			}

			killed, err := cg.Remove()
			require.NoError(t, err)
			if !ns {
				assert.Equal(t, []int{daemon}, killed)
			}
			assert.True(t, exited(pfd, 2*time.Second), "the daemon is dead after Remove")
			assert.NoDirExists(t, cg.Path())
			again, err := cg.Remove()
			assert.Equal(t, killed, again, "Remove is done once")
			assert.NoError(t, err)
			assert.Empty(t, marked(marker))
		})
	}
}

// TestCgroupKill: Kill empties the leaf at once, the leaf stays until
// Remove.
func TestCgroupKill(t *testing.T) {
	needLayer(t, "cgroup")
	noLeafLeft(t)
	spec := childSpec(t, "daemon")
	proc, cg := startInLeaf(t, spec, contain.Options{})
	readResult(t, proc)
	require.NoError(t, cg.Kill())
	members, err := cg.Members()
	require.NoError(t, err)
	assert.Empty(t, members)
	assert.True(t, proc.WaitExit(5*time.Second))
	assert.Equal(t, "signal: killed", proc.ExitStatus())
	assert.DirExists(t, cg.Path())
	killed, err := cg.Remove()
	require.NoError(t, err)
	assert.Empty(t, killed)
	assert.NoDirExists(t, cg.Path())
}

// TestCgroupPlacement: with Options.Cgroup the server's own
// /proc/self/cgroup names the leaf; without it, the harness's cgroup, and
// the isolation line says "off by config".
func TestCgroupPlacement(t *testing.T) {
	needLayer(t, "cgroup")
	noLeafLeft(t)
	home, err := contain.CgroupHome()
	require.NoError(t, err)
	mount := strings.TrimSuffix(home, mustOwn(t))

	proc, cg := startInLeaf(t, childSpec(t, "cgroup"), contain.Options{})
	r := readResult(t, proc)
	assert.Equal(t, cg.Path(), filepath.Join(mount, r.str("cgroup")))

	o := contain.Options{}
	assert.Equal(t, "off by config", contain.Probe().For(o).Cgroup.Why)
	assert.Contains(t, contain.Probe().For(o).Line(), " cgroup=none(off by config)")
	w, hand, err := contain.WrapEgress(childSpec(t, "cgroup"), o)
	require.NoError(t, err)
	assert.Nil(t, hand.Cgroup())
	assert.Zero(t, w.CgroupFD)
	r, code, stderr := run(t, w)
	require.Zero(t, code, stderr)
	assert.Equal(t, home, filepath.Join(mount, r.str("cgroup")), "the harness's own cgroup")
}

// mustOwn is this process's cgroup v2 path.
func mustOwn(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/cgroup")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return p
		}
	}
	t.Fatal("no 0:: line")
	return ""
}

// TestCgroupRefused: where the harness may not make a leaf (as uid 65534
// here), the layer says exactly what failed, WrapEgress makes no leaf and
// the server still runs.
func TestCgroupRefused(t *testing.T) {
	iso := contain.Probe()
	if iso.Cgroup.Applied {
		t.Skip("the cgroup layer applies here; the refusal runs in TestUnprivileged")
	}
	home, err := contain.CgroupHome()
	if err != nil {
		assert.Equal(t, err.Error(), iso.Cgroup.Why)
	} else {
		// The same mkdir, made by the test, fails the same way.
		try := filepath.Join(home, "sealmark-refusal-check")
		merr := os.Mkdir(try, 0o755)
		if merr == nil {
			_ = unix.Rmdir(try)
			t.Fatalf("mkdir in %s works, yet the layer says %q", home, iso.Cgroup.Why)
		}
		errno := merr.(*os.PathError).Err.Error()
		assert.Regexp(t, `^mkdir `+home+`/sealmark-\d+-\d+-\d+: `+errno+`$`, iso.Cgroup.Why)
	}
	o := contain.Options{Cgroup: true}
	assert.Contains(t, iso.For(o).Line(), " cgroup=none("+iso.Cgroup.Why+")")
	w, hand, err := contain.WrapEgress(childSpec(t, "cgroup"), o)
	require.NoError(t, err)
	assert.Nil(t, hand.Cgroup())
	assert.Zero(t, w.CgroupFD)
	hand.Cancel()
	r, code, stderr := run(t, wrap(t, childSpec(t, "cgroup"), contain.Options{}))
	require.Zero(t, code, stderr)
	assert.Equal(t, mustOwn(t), r.str("cgroup"))
}

// TestCgroupStaleSwept: SweepStale kills and removes the leaves of a
// harness that is gone (or whose pid now belongs to another process), and
// leaves a live harness's leaf and anything not named like a leaf alone.
func TestCgroupStaleSwept(t *testing.T) {
	needLayer(t, "cgroup")
	noLeafLeft(t)
	home, err := contain.CgroupHome()
	require.NoError(t, err)

	dead := startMarked(t, "X=1") // stands for the dead harness
	deadStart := startTime(t, dead.Process.Pid)
	require.NoError(t, dead.Process.Kill())
	_ = dead.Wait()

	leaf := func(name string) string {
		path := filepath.Join(home, name)
		require.NoError(t, os.Mkdir(path, 0o755))
		t.Cleanup(func() {
			_ = os.WriteFile(filepath.Join(path, "cgroup.kill"), []byte("1"), 0)
			for range 100 {
				if unix.Rmdir(path) == nil || !dirExists(path) {
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Errorf("could not remove %s", path)
		})
		return path
	}
	stale := leaf("sealmark-" + strconv.Itoa(dead.Process.Pid) + "-" + deadStart + "-1")
	reused := leaf("sealmark-" + strconv.Itoa(os.Getpid()) + "-1-2") // this pid, another start time
	live := leaf("sealmark-" + strconv.Itoa(os.Getpid()) + "-" + startTime(t, os.Getpid()) + "-999")
	other := leaf("sealmark-test-" + strconv.Itoa(os.Getpid()))

	orphan := startInCgroup(t, stale, newMarker(t))
	liveServer := startInCgroup(t, live, newMarker(t))

	did := SweepStale(t, t.TempDir())

	assert.NoDirExists(t, stale)
	assert.NoDirExists(t, reused)
	assert.DirExists(t, live)
	assert.DirExists(t, other)
	assert.Equal(t, "signal: killed", orphan.Wait().Error(), "the stale leaf's process")
	assert.NoError(t, syscall.Kill(liveServer.Process.Pid, 0), "the live leaf's process must survive")
	assert.Contains(t, did, "removed stale cgroup "+stale+" (harness pid "+strconv.Itoa(dead.Process.Pid)+" gone; killed pids ["+strconv.Itoa(orphan.Process.Pid)+"])")
	assert.Contains(t, did, "removed stale cgroup "+reused+" (harness pid "+strconv.Itoa(os.Getpid())+" gone; killed pids [])")
}

func dirExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// startInCgroup starts the test binary sleeping in the cgroup at path with
// marker in its environment; cleanup kills and reaps it.
func startInCgroup(t *testing.T, path, marker string) *exec.Cmd {
	t.Helper()
	dir, err := os.Open(path)
	require.NoError(t, err)
	defer dir.Close()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, childArg, "sleep")
	cmd.Env = []string{marker}
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(dir.Fd())}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// exited reports whether the process behind pidfd exits within d.
func exited(pidfd int, d time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	n, _ := unix.Poll(fds, int(d.Milliseconds()))
	return n == 1
}

// hostPid returns the pid among pids whose innermost pid (NSpid) is nspid.
func hostPid(pids []int, nspid int) int {
	for _, pid := range pids {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "NSpid:"); ok {
				f := strings.Fields(v)
				if len(f) > 0 && f[len(f)-1] == strconv.Itoa(nspid) {
					return pid
				}
			}
		}
	}
	return 0
}

// TestCgroupLeafGoesOnTheSignalPath: a leaf is registered for removal the
// moment it exists, so a Ctrl-C (which runs cleanup.Run before exiting)
// at any point after, even before the server starts, leaves no leaf
// behind; the next run's sweep is only for a SIGKILLed harness.
func TestCgroupLeafGoesOnTheSignalPath(t *testing.T) {
	needLayer(t, "cgroup")
	_, hand, err := contain.WrapEgress(launch.Spec{Path: "/bin/true"}, contain.Options{Cgroup: true})
	require.NoError(t, err)
	leaf := hand.Cgroup().Path()
	require.DirExists(t, leaf)
	cleanup.Run() // what the signal path runs
	assert.NoDirExists(t, leaf, "the leaf outlived an interrupted run")
	hand.Cancel()
}
