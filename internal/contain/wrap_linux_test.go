package contain_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/launch"
)

func TestProbe(t *testing.T) {
	iso := contain.Probe()
	t.Logf("isolation: %s", iso.Line())
	for _, l := range iso.Layers() {
		t.Logf("  %s", l)
		if !l.Applied && l.Why == "" {
			t.Errorf("layer %s neither applies nor says why", l.Name)
		}
	}
	// Needs nothing but Linux >= 3.5: must always work.
	assert.True(t, iso.NoNewPrivs.Applied, "no_new_privs: %s", iso.NoNewPrivs.Why)
	assert.True(t, iso.Pdeathsig.Applied, "pdeathsig: %s", iso.Pdeathsig.Why)
	assert.True(t, iso.FileSize.Applied, "rlimit-fsize: %s", iso.FileSize.Why)
	if runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64" {
		// Linux >= 5.6 (user notification, CONTINUE, pidfd_getfd)
		assert.True(t, iso.SeccompNotify.Applied, "seccomp-notify: %s", iso.SeccompNotify.Why)
	}
	if iso.LandlockABI >= 1 {
		assert.True(t, iso.LandlockFS.Applied, "landlock-fs with ABI %d: %s", iso.LandlockABI, iso.LandlockFS.Why)
		assert.Equal(t, "abi"+strconv.Itoa(iso.LandlockABI), iso.LandlockFS.Detail)
	}
	assert.Equal(t, iso.LandlockABI >= 4, iso.LandlockNet.Applied, "landlock-net: %s", iso.LandlockNet.Why)
	assert.Equal(t, iso.LandlockABI >= 6, iso.LandlockScope.Applied, "landlock-scope: %s", iso.LandlockScope.Why)
	if os.Geteuid() == 0 {
		assert.False(t, iso.UserNS.Applied && iso.PidNS.Detail == "", "userns counted but pidns did not use it")
	}
	assert.Equal(t, iso, contain.Probe(), "Probe is cached")
}

// TestWrapRunsExactly checks that the shim gives the server exactly the
// spec's program, arguments, environment and directory, with every layer
// and with none.
func TestWrapRunsExactly(t *testing.T) {
	for _, o := range []contain.Options{
		{},
		{Landlock: true, MaxFileBytes: 1 << 20, AllowPorts: []int{1}},
		{Landlock: true, NetNS: true, AllowPorts: []int{1}},
	} {
		spec := childSpec(t, "env", "a b", "--", "-x", "")
		o.SandboxTop = spec.Dir
		if o.NetNS {
			needLayer(t, "netns")
		}
		w := wrap(t, spec, o)
		require.NotEqual(t, spec.Path+" "+spec.Args[0], w.Path+" "+w.Args[0], "Wrap must insert the shim")
		assert.Equal(t, spec.Env, w.Env)
		assert.Equal(t, spec.Dir, w.Dir)
		r, code, stderr := run(t, w)
		require.Equal(t, 0, code, "stderr: %s", stderr)
		assert.Equal(t, toAny(spec.Env), r["env"], "options %+v", o)
		assert.Equal(t, spec.Dir, r["dir"])
		assert.Equal(t, toAny([]string{"a b", "--", "-x", ""}), r["args"])
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func TestLandlockConfinesWrites(t *testing.T) {
	needLayer(t, "landlock-fs")
	top := t.TempDir()
	outside := t.TempDir()
	tests := []struct {
		path, want string
	}{
		{filepath.Join(top, "inside.txt"), ""},
		{filepath.Join(outside, "outside.txt"), "permission denied"},
		{os.DevNull, ""},
	}
	for _, tt := range tests {
		spec := childSpec(t, "write", tt.path)
		r, code, stderr := run(t, wrap(t, spec, contain.Options{SandboxTop: top, Landlock: true}))
		require.Equal(t, 0, code, "stderr: %s", stderr)
		assert.Equal(t, tt.want, r.str("err"), "write %s", tt.path)
	}
	_, err := os.Stat(filepath.Join(outside, "outside.txt"))
	assert.True(t, os.IsNotExist(err), "the file outside the sandbox exists: %v", err)

	// The same write without Landlock succeeds: the refusal was Landlock's.
	spec := childSpec(t, "write", filepath.Join(outside, "outside.txt"))
	r, _, _ := run(t, wrap(t, spec, contain.Options{SandboxTop: top}))
	assert.Equal(t, "", r.str("err"))
}

func TestFileSizeCap(t *testing.T) {
	needLayer(t, "rlimit-fsize")
	top := t.TempDir()
	big := filepath.Join(top, "big")
	spec := childSpec(t, "big", big, "8192")
	r, code, stderr := run(t, wrap(t, spec, contain.Options{SandboxTop: top, MaxFileBytes: 4096}))
	require.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Equal(t, "file too large", r.str("err"))
	assert.EqualValues(t, 4096, r["size"])
}

func TestLandlockConnectOnlyAllowedPorts(t *testing.T) {
	needLayer(t, "landlock-net")
	allowed := serveHello(t)
	other := unusedPort(t)
	o := contain.Options{AllowPorts: []int{allowed}, Landlock: true}

	r, _, stderr := run(t, wrap(t, childSpec(t, "connect", "127.0.0.1:"+strconv.Itoa(allowed)), o))
	assert.Equal(t, "", r.str("err"), "stderr: %s", stderr)
	assert.Equal(t, "hello", r.str("read"))

	r, _, _ = run(t, wrap(t, childSpec(t, "connect", "127.0.0.1:"+strconv.Itoa(other)), o))
	assert.Equal(t, "permission denied", r.str("err"), "Landlock answers EACCES; a refused connect would say so")
}

func TestLandlockScopesSignals(t *testing.T) {
	needLayer(t, "landlock-scope")
	spec := childSpec(t, "signal", strconv.Itoa(os.Getpid()))
	r, _, _ := run(t, wrap(t, spec, contain.Options{Landlock: true}))
	assert.Equal(t, "operation not permitted", r.str("err"), "the server signalled the harness")

	r, _, _ = run(t, wrap(t, childSpec(t, "signal", strconv.Itoa(os.Getpid())), contain.Options{}))
	assert.Equal(t, "", r.str("err"), "without Landlock the harness can be signalled")
}

func TestShimFailsClosed(t *testing.T) {
	spec := childSpec(t, "env")
	spec.Path = filepath.Join(t.TempDir(), "no-such-server")
	_, code, stderr := run(t, wrap(t, spec, contain.Options{}))
	assert.Equal(t, 127, code)
	assert.Contains(t, stderr, "sealmark-contain: exec ")

	needLayer(t, "landlock-fs")
	spec = childSpec(t, "env")
	r, code, stderr := run(t, wrap(t, spec, contain.Options{SandboxTop: filepath.Join(spec.Dir, "gone"), Landlock: true}))
	assert.Equal(t, 125, code, "a layer that cannot be applied must stop the start")
	assert.Contains(t, stderr, "sealmark-contain: restrict: landlock rule for ")
	assert.Nil(t, r, "the server ran")
}

func TestExitStatusPassesThrough(t *testing.T) {
	_, code, _ := run(t, wrap(t, childSpec(t, "exit", "7"), contain.Options{Landlock: true}))
	assert.Equal(t, 7, code)
}

func TestWrapRefusesBadInput(t *testing.T) {
	spec := childSpec(t, "env")
	for _, o := range []contain.Options{
		{SandboxTop: "relative/top"},
		{AllowPorts: []int{0}},
		{AllowPorts: []int{70000}},
		{MaxFileBytes: -1},
	} {
		_, err := contain.Wrap(spec, o)
		assert.Error(t, err, "options %+v", o)
	}
	spec.Path = "relative/server"
	_, err := contain.Wrap(spec, contain.Options{})
	assert.Error(t, err)
}

// TestPdeathsigKillsServerWithHarness SIGKILLs a harness (a child of the
// test) while its wrapped server runs: the server dies with it.
func TestPdeathsigKillsServerWithHarness(t *testing.T) {
	needLayer(t, "pdeathsig")
	serverMarker := newMarker(t)
	harness, r := start(t, childSpec(t, "harness", serverMarker))
	require.Equal(t, "", r.str("err"))
	require.Eventually(t, func() bool { return len(marked(serverMarker)) == 1 }, 5*time.Second, 10*time.Millisecond,
		"the server runs")
	require.NoError(t, syscall.Kill(harness.Process.Pid, syscall.SIGKILL))
	assert.Eventually(t, func() bool { return len(marked(serverMarker)) == 0 }, 5*time.Second, 10*time.Millisecond,
		"the server outlived its harness")
}

// TestLaunchStartsWrappedSpec runs a wrapped spec through launch, as the
// engine will.
func TestLaunchStartsWrappedSpec(t *testing.T) {
	spec := childSpec(t, "env", "x")
	proc, err := launch.Start(wrap(t, spec, contain.Options{SandboxTop: spec.Dir, Landlock: true, MaxFileBytes: 1 << 20}))
	require.NoError(t, err)
	defer proc.Stop(time.Second, time.Second)
	line, err := bufio.NewReader(proc.Messages()).ReadString('\n')
	require.NoError(t, err, "server log: %s", proc.Log().Tail(1000))
	var r result
	require.NoError(t, json.Unmarshal([]byte(line), &r))
	assert.Equal(t, toAny(spec.Env), r["env"])
	assert.Equal(t, spec.Dir, r["dir"])
	rep := proc.Stop(time.Second, time.Second)
	assert.Equal(t, "exit status 0", rep.Status)
	assert.Empty(t, rep.Leftover)
}
