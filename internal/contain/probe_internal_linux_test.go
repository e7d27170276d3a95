package contain

import (
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/launch"
)

// TestProbeRefusedNamespaces makes every namespace clone fail as it does
// where user namespaces are blocked: the other layers still apply and the
// line says egress is not hard-blocked, with the error.
func TestProbeRefusedNamespaces(t *testing.T) {
	defer func(r func(string, *syscall.SysProcAttr) (probeReport, error)) { probeRunner = r }(probeRunner)
	probeRunner = func(exe string, attr *syscall.SysProcAttr) (probeReport, error) {
		if attr.Cloneflags != 0 {
			return probeReport{}, syscall.EPERM
		}
		return runProbe(exe, attr)
	}
	iso := probe()
	for _, l := range []Layer{iso.NetNS, iso.PidNS, iso.UserNS} {
		assert.False(t, l.Applied, l.Name)
		assert.Contains(t, l.Why, "operation not permitted", l.Name)
	}
	assert.True(t, iso.NoNewPrivs.Applied && iso.Pdeathsig.Applied && iso.FileSize.Applied)
	line := iso.For(Options{NetNS: true, Landlock: true}).Line()
	t.Log(line)
	if iso.LandlockNet.Applied {
		assert.Contains(t, line, "egress not hard-blocked (tcp connect limited to allowed ports, udp open; netns: clone(")
	} else {
		assert.Contains(t, line, "egress not blocked (netns: clone(")
	}

	// Wrap asks the shim for nothing that was refused, and the server runs.
	spec, _, err := wrapWith(iso.For(Options{NetNS: true}), launch.Spec{Path: "/bin/true"}, Options{NetNS: true})
	require.NoError(t, err)
	assert.NotContains(t, strings.Join(spec.Args, " "), "-ns")
}

// TestProbeChildFails: a probe child that cannot run at all leaves every
// shim layer refused with its error, and Wrap then leaves the spec alone.
func TestProbeChildFails(t *testing.T) {
	defer func(r func(string, *syscall.SysProcAttr) (probeReport, error)) { probeRunner = r }(probeRunner)
	probeRunner = func(string, *syscall.SysProcAttr) (probeReport, error) { return probeReport{}, syscall.ENOEXEC }
	iso := probe()
	for _, l := range iso.Layers() {
		switch l.Name {
		case "pgid":
			assert.True(t, l.Applied)
		case "subreaper", "seccomp-notify", "tmpfs": // not the shim's: the harness mounts the quota
		default:
			assert.False(t, l.Applied, l.Name)
			assert.Contains(t, l.Why, "exec format error", l.Name)
		}
	}
	spec := launch.Spec{Path: "/bin/true", Args: []string{"x"}}
	got, _, err := wrapWith(iso.For(Options{Landlock: true}), spec, Options{Landlock: true})
	require.NoError(t, err)
	assert.Equal(t, spec, got)
}
