package contain

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/launch"
)

// full is what a root run on a recent kernel gets.
func full() Isolation {
	return Isolation{
		Pgid:          applied("pgid", ""),
		Pdeathsig:     applied("pdeathsig", ""),
		Subreaper:     applied("subreaper", ""),
		NoNewPrivs:    applied("no_new_privs", ""),
		FileSize:      applied("rlimit-fsize", ""),
		LandlockFS:    applied("landlock-fs", "abi7"),
		LandlockNet:   applied("landlock-net", "tcp-connect"),
		LandlockScope: applied("landlock-scope", "signal+abstract-unix"),
		NetNS:         applied("netns", "lo-only"),
		PidNS:         applied("pidns", "userns"),
		UserNS:        applied("userns", ""),
		SeccompNotify: refused("seccomp-notify", "not implemented"),
		Cgroup:        applied("cgroup", "v2-leaf"),
		LandlockABI:   7,

		CgroupControllers: []string{"hugetlb"},
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		name string
		iso  Isolation
		want string
	}{{
		"everything",
		full(),
		"procs=pgid+pdeathsig+subreaper+pidns(userns) net=netns(lo-only)+landlock(tcp-connect) fs=landlock(abi7) rlimits=fsize privs=no_new_privs signals=landlock-scoped cgroup=v2-leaf; egress not observed (seccomp-notify: not implemented); host unix sockets reachable (seccomp-notify: not implemented)",
	}, {
		"defaults",
		full().For(Options{}),
		"procs=pgid+pdeathsig+subreaper net=none(netns: off by config; landlock-net: off by config) fs=none(landlock-fs: off by config) rlimits=none(rlimit-fsize: no limit set) privs=no_new_privs signals=none(landlock-scope: off by config) cgroup=none(off by config); egress not blocked (netns: off by config; landlock-net: off by config); egress not observed (seccomp-notify: not implemented); host unix sockets reachable (seccomp-notify: not implemented)",
	}, {
		"landlock without netns",
		full().For(Options{Landlock: true, SandboxTop: "/tmp/sealmark-x", MaxFileBytes: 1}),
		"procs=pgid+pdeathsig+subreaper net=landlock(tcp-connect) fs=landlock(abi7) rlimits=fsize privs=no_new_privs signals=landlock-scoped cgroup=none(off by config); egress not hard-blocked (tcp connect limited to allowed ports, udp open; netns: off by config); egress not observed (seccomp-notify: not implemented); host unix sockets reachable (seccomp-notify: not implemented)",
	}, {
		"observed and hard-blocked",
		func() Isolation {
			i := full()
			i.SeccompNotify = applied("seccomp-notify", "")
			return i
		}(),
		"procs=pgid+pdeathsig+subreaper+pidns(userns) net=netns(lo-only)+landlock(tcp-connect)+seccomp-notify fs=landlock(abi7) rlimits=fsize privs=no_new_privs signals=landlock-scoped cgroup=v2-leaf unix=sandbox-only",
	}, {
		"every namespace, a service declared",
		func() Isolation {
			i := full()
			i.SeccompNotify = applied("seccomp-notify", "")
			i.MountNS = applied("mountns", "ro-host+private-tmp+own-proc")
			i.IPCUTS, i.Caps = applied("ipc+uts", ""), applied("caps", "")
			return i.For(Options{NetNS: true, Landlock: true, Egress: true, Cgroup: true, MaxFileBytes: 1, SandboxTop: "/tmp/sealmark-x",
				SandboxTmp: "/tmp/sealmark-x/tmp", Services: []Service{{"tcp", "127.0.0.1:5432"}}})
		}(),
		"procs=pgid+pdeathsig+subreaper+pidns(userns) net=netns(lo-only)+landlock(tcp-connect)+seccomp-notify fs=landlock(abi7) mounts=ro-host+private-tmp+own-proc rlimits=fsize privs=no_new_privs+no-caps ipc,uts=own-namespaces signals=landlock-scoped cgroup=v2-leaf unix=sandbox-only services=tcp:127.0.0.1:5432",
	}, {
		"credential stores hidden, one kept, as root",
		func() Isolation {
			i := full()
			i.SeccompNotify = applied("seccomp-notify", "")
			i.MountNS = applied("mountns", "ro-host+private-tmp+own-proc")
			i.Secrets = applied("secrets", "hidden(7)")
			i.secrets = secretsPlan{Kept: []string{"/root/.config/gh (holds /root/.config/gh/extensions/mcp)"}}
			i.HostRoot = true
			return i
		}(),
		"procs=pgid+pdeathsig+subreaper+pidns(userns) net=netns(lo-only)+landlock(tcp-connect)+seccomp-notify fs=landlock(abi7) mounts=ro-host+private-tmp+own-proc secrets=hidden(7) rlimits=fsize privs=no_new_privs signals=landlock-scoped cgroup=v2-leaf unix=sandbox-only; credential stores left readable, the server needs a path beneath them: /root/.config/gh (holds /root/.config/gh/extensions/mcp); root-owned host files readable outside the hidden credential stores (the server runs as the host's uid 0, without capabilities)",
	}, {
		"credential stores shown, as root",
		func() Isolation {
			i := full()
			i.SeccompNotify = applied("seccomp-notify", "")
			i.MountNS = applied("mountns", "ro-host+private-tmp+own-proc")
			i.Secrets = applied("secrets", "")
			i.HostRoot = true
			return i.For(Options{NetNS: true, Landlock: true, Egress: true, Cgroup: true, MaxFileBytes: 1, SandboxTop: "/tmp/sealmark-x", SandboxTmp: "/tmp/sealmark-x/tmp", ShowCredentials: true})
		}(),
		"procs=pgid+pdeathsig+subreaper+pidns(userns) net=netns(lo-only)+landlock(tcp-connect)+seccomp-notify fs=landlock(abi7) mounts=ro-host+private-tmp+own-proc secrets=none(off by config) rlimits=fsize privs=no_new_privs signals=landlock-scoped cgroup=v2-leaf unix=sandbox-only; the harness user's credential stores readable (secrets: off by config); root-owned host files readable (the server runs as the host's uid 0, without capabilities)",
	}, {
		"namespaces refused",
		func() Isolation {
			i := full()
			i.SeccompNotify = applied("seccomp-notify", "")
			i.MountNS = refused("mountns", "mount proc on /proc: operation not permitted")
			i.IPCUTS, i.Caps = applied("ipc+uts", ""), applied("caps", "")
			return i
		}(),
		"procs=pgid+pdeathsig+subreaper+pidns(userns) net=netns(lo-only)+landlock(tcp-connect)+seccomp-notify fs=landlock(abi7) mounts=none(mountns: mount proc on /proc: operation not permitted) rlimits=fsize privs=no_new_privs+no-caps ipc,uts=own-namespaces signals=landlock-scoped cgroup=v2-leaf unix=sandbox-only; host files' metadata changeable, host /tmp shared and other processes' /proc readable (mountns: mount proc on /proc: operation not permitted)",
	}, {
		"observed without netns",
		func() Isolation {
			i := full()
			i.SeccompNotify = applied("seccomp-notify", "")
			return i.For(Options{Egress: true})
		}(),
		"procs=pgid+pdeathsig+subreaper net=seccomp-notify fs=none(landlock-fs: off by config) rlimits=none(rlimit-fsize: no limit set) privs=no_new_privs signals=none(landlock-scope: off by config) cgroup=none(off by config) unix=sandbox-only; egress observed but not hard-blocked (seccomp-notify denies what the policy refuses, racily; netns: off by config)",
	}, {
		"observer off by config",
		func() Isolation {
			i := full()
			i.SeccompNotify = applied("seccomp-notify", "")
			return i.For(Options{NetNS: true})
		}(),
		"procs=pgid+pdeathsig+subreaper+pidns(userns) net=netns(lo-only) fs=none(landlock-fs: off by config) rlimits=none(rlimit-fsize: no limit set) privs=no_new_privs signals=none(landlock-scope: off by config) cgroup=none(off by config); egress not observed (seccomp-notify: off by config); host unix sockets reachable (seccomp-notify: off by config)",
	}, {
		"refused with the error",
		func() Isolation {
			i := full()
			i.PidNS = refused("pidns", "clone(CLONE_NEWUSER|CLONE_NEWPID): operation not permitted")
			i.NetNS = refused("netns", "clone(CLONE_NEWUSER|CLONE_NEWPID): operation not permitted")
			i.LandlockNet = refused("landlock-net", "landlock ABI 3 cannot restrict TCP (needs 4)")
			i.Subreaper = refused("subreaper", "not enabled by the harness")
			return i
		}(),
		"procs=pgid+pdeathsig net=none(netns: clone(CLONE_NEWUSER|CLONE_NEWPID): operation not permitted; landlock-net: landlock ABI 3 cannot restrict TCP (needs 4)) fs=landlock(abi7) rlimits=fsize privs=no_new_privs signals=landlock-scoped cgroup=v2-leaf; egress not blocked (netns: clone(CLONE_NEWUSER|CLONE_NEWPID): operation not permitted; landlock-net: landlock ABI 3 cannot restrict TCP (needs 4)); egress not observed (seccomp-notify: not implemented); host unix sockets reachable (seccomp-notify: not implemented)",
	}, {
		"cgroup limits without their controllers",
		full().For(Options{Cgroup: true, MaxProcs: 64, MaxMemory: 1 << 30}),
		"procs=pgid+pdeathsig+subreaper net=none(netns: off by config; landlock-net: off by config) fs=none(landlock-fs: off by config) rlimits=none(rlimit-fsize: no limit set) privs=no_new_privs signals=none(landlock-scope: off by config) cgroup=v2-leaf; egress not blocked (netns: off by config; landlock-net: off by config); egress not observed (seccomp-notify: not implemented); host unix sockets reachable (seccomp-notify: not implemented); no pids.max or memory.max (the cgroup leaf's controllers: hugetlb)",
	}, {
		"cgroup limits with one controller",
		func() Isolation {
			i := full()
			i.CgroupControllers = []string{"cpu", "pids"}
			return i.For(Options{Cgroup: true, NetNS: true, MaxProcs: 64, MaxMemory: 1 << 30})
		}(),
		"procs=pgid+pdeathsig+subreaper+pidns(userns) net=netns(lo-only) fs=none(landlock-fs: off by config) rlimits=none(rlimit-fsize: no limit set) privs=no_new_privs signals=none(landlock-scope: off by config) cgroup=v2-leaf+pids.max; egress not observed (seccomp-notify: not implemented); host unix sockets reachable (seccomp-notify: not implemented); no memory.max (the cgroup leaf's controllers: cpu pids)",
	}, {
		"cgroup refused",
		func() Isolation {
			i := full()
			i.Cgroup = refused("cgroup", "mkdir /sys/fs/cgroup/unified/sealmark-1-2-3: permission denied")
			return i.For(Options{Cgroup: true, NetNS: true, MaxProcs: 64})
		}(),
		"procs=pgid+pdeathsig+subreaper+pidns(userns) net=netns(lo-only) fs=none(landlock-fs: off by config) rlimits=none(rlimit-fsize: no limit set) privs=no_new_privs signals=none(landlock-scope: off by config) cgroup=none(mkdir /sys/fs/cgroup/unified/sealmark-1-2-3: permission denied); egress not observed (seccomp-notify: not implemented); host unix sockets reachable (seccomp-notify: not implemented)",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.iso.Line())
		})
	}
}

func TestForKeepsRefusalsAndNamesConfig(t *testing.T) {
	i := full()
	i.LandlockScope = refused("landlock-scope", "landlock ABI 5 has no scopes (needs 6)")
	i.UserNS = refused("userns", "not needed as root")
	got := i.For(Options{Landlock: true, NetNS: true})
	assert.Equal(t, "landlock ABI 5 has no scopes (needs 6)", got.LandlockScope.Why, "a refusal stays what it was")
	assert.Equal(t, "no sandbox", got.LandlockFS.Why)
	assert.True(t, got.LandlockNet.Applied)
	assert.True(t, got.NetNS.Applied && got.PidNS.Applied)
	assert.Equal(t, "not needed as root", got.UserNS.Why)

	i.PidNS = refused("pidns", "clone: operation not permitted")
	got = i.For(Options{NetNS: true})
	assert.False(t, got.NetNS.Applied)
	assert.Equal(t, "needs pidns", got.NetNS.Why)
	assert.True(t, got.Applied("no_new_privs"))
	assert.False(t, got.Applied("no-such-layer"))
}

func TestShimArgsRoundTrip(t *testing.T) {
	c := shimConfig{Mode: modeRun, Ppid: 42, FileSize: 1 << 20, Writable: "/tmp/sealmark-x", Net: true,
		Scope: true, Ports: []int{80, 8080}, NS: true, User: true, Report: 4, Mount: true, Top: "/tmp/sealmark-x",
		Visible: []string{"/tmp/srv"}, Hide: []string{"/root/.ssh", "/root/.npmrc"}, Path: "/bin/server", Args: []string{"--", "-x", ""}}
	args := c.args()
	require.Equal(t, Verb, args[0])
	got, err := parseShim(args[1:])
	require.NoError(t, err)
	assert.Equal(t, c, got)

	for _, bad := range [][]string{
		nil,
		{"bogus"},
		{modeRun, "--", "relative"},
		{modeRun, "-port=0", "--", "/bin/x"},
		{modeRun, "-nosuchflag", "--", "/bin/x"},
		{modeRun, "-hide=.ssh", "--", "/bin/x"},
	} {
		_, err := parseShim(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func TestRunID(t *testing.T) {
	for marker, want := range map[string]string{
		"SEALMARK_RUN=0123456789abcdef": "0123456789abcdef",
		"0123456789abcdef":              "0123456789abcdef",
		"":                              "",
	} {
		got, err := runID(marker)
		assert.NoError(t, err)
		assert.Equal(t, want, got)
	}
	for _, bad := range []string{"SEALMARK_RUN=xyz", "0123456789ABCDEF", "0123456789abcdef0", "../x"} {
		_, err := runID(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func TestOwnerFile(t *testing.T) {
	top := t.TempDir()
	require.NoError(t, WriteOwner(top, "SEALMARK_RUN=00000000000000ff"))
	o, err := readOwner(top)
	require.NoError(t, err)
	assert.Equal(t, os.Getpid(), o.Pid)
	assert.Equal(t, "00000000000000ff", o.Run)
	if runtime.GOOS == "linux" {
		assert.NotZero(t, o.Start)
	}
	assert.True(t, o.alive(), "this process owns it")
	entries, _ := os.ReadDir(top)
	assert.Len(t, entries, 1, "no temp file left")

	assert.Error(t, WriteOwner(top, "SEALMARK_RUN=bad"))
	for _, bad := range []string{"", "pid 1\n", "sealmark-owner 1\n", "sealmark-owner 1\npid x\n", "sealmark-owner 1\npid 5\nrun ../\n"} {
		_, err := parseOwner([]byte(bad))
		assert.Error(t, err, "%q", bad)
	}
	require.NoError(t, os.Remove(filepath.Join(top, OwnerFile)))
	require.NoError(t, os.Symlink("/etc/hostname", filepath.Join(top, OwnerFile)))
	_, err = readOwner(top)
	assert.Error(t, err, "a link is never believed")
}

func TestWrapNeedsDispatch(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux has a shim")
	}
	dispatched.Store(false)
	defer dispatched.Store(true)
	_, err := Wrap(launch.Spec{Path: "/bin/true"}, Options{})
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "Dispatch"), err.Error())
}

func TestIsShim(t *testing.T) {
	c := shimConfig{Mode: modeInner, Path: "/bin/server"}
	assert.True(t, IsShim(append([]string{"/usr/bin/sealmark"}, c.args()...)))
	assert.False(t, IsShim([]string{"/bin/server", "--flag"}))
	assert.False(t, IsShim([]string{"/usr/bin/sealmark"}))
}
