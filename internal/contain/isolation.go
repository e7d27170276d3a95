package contain

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/internal/launch"
)

// A Layer is one containment mechanism and whether it applies.
type Layer struct {
	// Name is the mechanism: "pgid", "pdeathsig", "subreaper",
	// "no_new_privs", "rlimit-fsize", "landlock-fs", "landlock-net",
	// "landlock-scope", "netns", "pidns", "userns", "seccomp-notify" or
	// "cgroup".
	Name string
	// Applied is true when the mechanism works here and is in use.
	Applied bool
	// Detail qualifies an applied layer ("abi7", "lo-only").
	Detail string
	// Why says why a layer does not apply: the exact error of the attempt
	// ("unshare(CLONE_NEWNET): operation not permitted"), "off by config",
	// "not needed as root", "not implemented", "not Linux".
	Why string
}

func applied(name, detail string) Layer { return Layer{Name: name, Applied: true, Detail: detail} }

func refused(name, why string) Layer { return Layer{Name: name, Why: why} }

// String is "name(detail)" for an applied layer and "name: why" otherwise.
func (l Layer) String() string {
	if l.Applied {
		if l.Detail == "" {
			return l.Name
		}
		return l.Name + "(" + l.Detail + ")"
	}
	return l.Name + ": " + l.Why
}

// Isolation says which containment mechanisms apply to a server, and for
// each one that does not, why. Probe says what the machine allows;
// Isolation.For narrows it to what a server wrapped with given Options gets.
type Isolation struct {
	Pgid      Layer // the server leads its own process group (launch does this)
	Pdeathsig Layer // the server gets SIGKILL when the harness dies
	Subreaper Layer // the harness adopts orphans (process.EnableSubreaper)

	NoNewPrivs Layer // no setuid or file-capability gains
	FileSize   Layer // RLIMIT_FSIZE: a per-file size cap

	LandlockFS    Layer // writes only beneath the sandbox top and to /dev/null
	LandlockNet   Layer // TCP connect only to the allowed loopback ports (ABI >= 4)
	LandlockScope Layer // no signals or abstract unix sockets outside the server (ABI >= 6)

	NetNS  Layer // a network namespace whose only interface is lo
	PidNS  Layer // a pid namespace: the whole tree dies with the shim
	UserNS Layer // a user namespace: the server's capabilities are its namespace's only
	// MountNS is a mount namespace where the host is read-only, the
	// sandbox's tmp is /tmp and /var/tmp, /dev/shm is private and /proc is
	// the server's own pid namespace's; "+own-pts" in its Detail: /dev/pts
	// is a devpts instance of its own, so the server can open a
	// pseudo-terminal (and no host terminal).
	MountNS Layer
	// Secrets: in the mount namespace the credential stores of the
	// harness user's homes, and as root the host's root-only secrets, are
	// hidden (Options.Homes); Detail is "hidden(N)", N the stores hidden.
	Secrets Layer
	// IPCUTS are new IPC and UTS namespaces: no host SysV IPC, no hostname
	// change that reaches the host.
	IPCUTS Layer
	// Caps: the server starts with no capabilities, none to regain
	// (bounding set empty, securebits locked).
	Caps Layer

	SeccompNotify Layer // the egress observer: seccomp user notification answered by the harness

	Cgroup Layer // a cgroup v2 leaf made by the harness: members listed and killed together

	// Quota is the sandbox's size limit enforced by a filesystem of its
	// own ("tmpfs", detail the size): a write past it fails. Probe says
	// whether the harness may mount one; the engine fills in the size, or
	// why its sandbox has none. Without it the limit is sampled.
	Quota Layer

	// LandlockABI is the kernel's Landlock ABI version, 0 without Landlock.
	LandlockABI int
	// HostRoot: the harness runs as root, so the server runs as the host's
	// uid 0 (the user namespace maps root to itself): without capabilities,
	// yet the owner of every root-owned host file, which it can read
	// (Landlock limits writes, not reads) where the mount namespace does
	// not hide it (Secrets hides the host's root-only secrets).
	HostRoot bool
	// CgroupControllers are the controllers a leaf gets here (its
	// cgroup.controllers), which decide the limits it can enforce.
	CgroupControllers []string

	cgroupUnset []string    // limits Options asked for that no controller enforces
	cgroupSet   []string    // limits Options asked for that the leaf enforces: "pids.max", "memory.max"
	services    []string    // Options.Services, as given
	secrets     secretsPlan // with Secrets applied: what is hidden, what is kept
	pty         bool        // with MountNS: a private devpts instance (Detail "+own-pts")
	ptyWhy      string      // why not, when MountNS applies
}

// Layers returns every layer in a fixed order, applied or not: what
// "sealmark doctor" lists.
func (i Isolation) Layers() []Layer {
	return []Layer{
		i.Pgid, i.Pdeathsig, i.Subreaper,
		i.NoNewPrivs, i.FileSize,
		i.LandlockFS, i.LandlockNet, i.LandlockScope,
		i.NetNS, i.PidNS, i.UserNS, i.MountNS, i.Secrets, i.IPCUTS, i.Caps,
		i.SeccompNotify,
		i.Cgroup,
		i.Quota,
	}
}

// For returns what a server wrapped with o gets: the layers o turns off say
// "off by config" (or why o leaves them nothing to do), the others are as
// probed. The credential stores it counts as hidden are those of any
// server that needs nothing beneath them (ForServer knows the server).
func (i Isolation) For(o Options) Isolation { return i.narrow(o, nil) }

// ForServer is For for the server spec starts (before Wrap): a credential
// store that holds a path it needs (its program, its working directory, a
// path argument, a declared socket) stays readable, and Line says so.
func (i Isolation) ForServer(o Options, spec launch.Spec) Isolation { return i.narrow(o, &spec) }

func (i Isolation) narrow(o Options, spec *launch.Spec) Isolation {
	off := func(l *Layer, why string) {
		if l.Name == "" {
			return // not probed (a hand-made Isolation)
		}
		if l.Applied || l.Why == "" {
			*l = refused(l.Name, why)
		}
	}
	if o.MaxFileBytes <= 0 {
		off(&i.FileSize, "no limit set")
	}
	if !o.Landlock {
		off(&i.LandlockFS, "off by config")
		off(&i.LandlockNet, "off by config")
		off(&i.LandlockScope, "off by config")
	} else if o.SandboxTop == "" {
		off(&i.LandlockFS, "no sandbox")
	}
	if !o.Egress {
		off(&i.SeccompNotify, "off by config")
	}
	for _, sv := range o.Services {
		i.services = append(i.services, sv.String())
	}
	if !o.Cgroup {
		off(&i.Cgroup, "off by config")
	} else if i.Cgroup.Applied {
		l := o.limits()
		i.cgroupSet = l.set(i.CgroupControllers)
		for _, s := range i.cgroupSet {
			i.Cgroup.Detail += "+" + s
		}
		i.cgroupUnset = l.missing(i.CgroupControllers)
	}
	if !o.NetNS {
		off(&i.NetNS, "off by config")
		off(&i.PidNS, "off by config")
		off(&i.UserNS, "off by config")
		off(&i.MountNS, "off by config")
		off(&i.Secrets, "off by config")
		off(&i.IPCUTS, "off by config")
		off(&i.Caps, "off by config")
	} else if o.SandboxTop == "" {
		off(&i.MountNS, "no sandbox")
		off(&i.Secrets, "no sandbox")
	} else if o.SandboxTmp == "" && i.MountNS.Applied {
		i.MountNS.Detail = strings.Replace(i.MountNS.Detail, "private-tmp", "host-tmp-read-only", 1)
	}
	if o.NetNS && !i.PidNS.Applied {
		// The network namespace is made inside the pid namespace's shim.
		off(&i.NetNS, "needs pidns")
	}
	if o.ShowCredentials {
		off(&i.Secrets, "off by config")
	}
	if i.Secrets.Applied {
		i.planSecrets(o, spec)
	}
	if !i.MountNS.Applied {
		i.pty = false
	}
	return i
}

// planSecrets fills in what the secrets layer hides for a server of spec
// (nil: one that needs nothing but the sandbox).
func (i *Isolation) planSecrets(o Options, spec *launch.Spec) {
	if !i.MountNS.Applied {
		i.Secrets = refused(i.Secrets.Name, "needs mountns")
		return
	}
	homes := o.Homes
	if homes == nil {
		homes = credentialHomes()
	}
	needed := []string{o.SandboxTop}
	var visible []string
	if spec != nil {
		if exe, err := os.Executable(); err == nil {
			n := neededFor(*spec, exe, o.Services)
			visible = visibleFor(n)
			needed = append(needed, n...)
		}
		if filepath.IsAbs(spec.Dir) {
			needed = append(needed, filepath.Clean(spec.Dir))
		}
	}
	i.secrets = planSecrets(homes, i.HostRoot, needed, visible, o.SandboxTop)
	i.Secrets.Detail = fmt.Sprintf("hidden(%d)", len(i.secrets.Hide))
}

// Enforces reports whether the cgroup leaf of a server wrapped with the
// Options given to For enforces the limit named: "pids.max" (Options.MaxProcs)
// or "memory.max" (Options.MaxMemory).
func (i Isolation) Enforces(limit string) bool { return slices.Contains(i.cgroupSet, limit) }

// Applied reports whether the layer with the given name applies.
func (i Isolation) Applied(name string) bool {
	for _, l := range i.Layers() {
		if l.Name == name {
			return l.Applied
		}
	}
	return false
}

// Line is the one-line summary a run prints after "isolation: ", e.g.
//
//	procs=pgid+pdeathsig+subreaper+pidns(userns) net=netns(lo-only)+landlock(tcp-connect)+seccomp-notify fs=landlock(abi7) rlimits=fsize privs=no_new_privs signals=landlock-scoped cgroup=v2-leaf unix=sandbox-only services=tcp:127.0.0.1:5432
//
// "unix=sandbox-only" says pathname unix sockets outside the sandbox are
// refused (Options.Policy); "services=" names every declared allowance.
// A group with nothing applied says why: "fs=none(landlock-fs: off by
// config)", "cgroup=none(mkdir /sys/fs/cgroup/...: permission denied)".
// "secrets=hidden(N)" counts the credential stores hidden from the server.
// The statements after ";" say what is weaker: whether egress is
// hard-blocked, that it is not observed, which credential stores stay
// readable, and which cgroup limits asked for no controller enforces.
func (i Isolation) Line() string {
	var parts []string
	group := func(name string, ls ...Layer) {
		var on, why []string
		for _, l := range ls {
			switch {
			case l.Applied:
				on = append(on, l.short())
			case l.Why != "" && l.Why != "not needed as root":
				why = append(why, l.Name+": "+l.Why)
			}
		}
		switch {
		case len(on) > 0:
			parts = append(parts, name+"="+strings.Join(on, "+"))
		case len(ls) == 1 && ls[0].Name == name:
			parts = append(parts, name+"=none("+ls[0].Why+")")
		default:
			parts = append(parts, name+"=none("+strings.Join(why, "; ")+")")
		}
	}
	procs := []Layer{i.Pgid, i.Pdeathsig, i.Subreaper, i.PidNS}
	group("procs", procs...)
	if i.SeccompNotify.Applied {
		group("net", i.NetNS, i.LandlockNet, i.SeccompNotify)
	} else {
		group("net", i.NetNS, i.LandlockNet) // the refusal has its own statement below
	}
	group("fs", i.LandlockFS)
	if i.MountNS.Name != "" {
		group("mounts", i.MountNS)
	}
	if i.Secrets.Name != "" {
		group("secrets", i.Secrets)
	}
	group("rlimits", i.FileSize)
	group("privs", i.NoNewPrivs, i.Caps)
	if i.IPCUTS.Applied {
		parts = append(parts, "ipc,uts=own-namespaces")
	}
	group("signals", i.LandlockScope)
	group("cgroup", i.Cgroup)
	if i.Quota.Name != "" {
		group("quota", i.Quota)
	}
	if i.SeccompNotify.Applied {
		// Options.Policy: pathname sockets by inode, abstract ones by netns
		parts = append(parts, "unix=sandbox-only")
	}
	if len(i.services) > 0 {
		parts = append(parts, "services="+strings.Join(i.services, "+"))
	}

	var weaker []string
	switch {
	case i.NetNS.Applied:
		// non-loopback egress fails at route lookup: hard-blocked
	case i.SeccompNotify.Applied:
		weaker = append(weaker, "egress observed but not hard-blocked (seccomp-notify denies what the policy refuses, racily; netns: "+i.NetNS.Why+")")
	case i.LandlockNet.Applied:
		weaker = append(weaker, "egress not hard-blocked (tcp connect limited to allowed ports, udp open; netns: "+i.NetNS.Why+")")
	default:
		weaker = append(weaker, "egress not blocked (netns: "+i.NetNS.Why+"; landlock-net: "+i.LandlockNet.Why+")")
	}
	if !i.MountNS.Applied && i.MountNS.Name != "" {
		weaker = append(weaker, "host files' metadata changeable, host /tmp shared and other processes' /proc readable (mountns: "+i.MountNS.Why+")")
	}
	if i.MountNS.Applied && !i.pty && i.ptyWhy != "" {
		weaker = append(weaker, "no pseudo-terminal for the server (devpts: "+i.ptyWhy+")")
	}
	if !i.SeccompNotify.Applied {
		weaker = append(weaker, "egress not observed (seccomp-notify: "+i.SeccompNotify.Why+")",
			"host unix sockets reachable (seccomp-notify: "+i.SeccompNotify.Why+")")
	}
	if i.Secrets.Name != "" && !i.Secrets.Applied {
		weaker = append(weaker, "the harness user's credential stores readable (secrets: "+i.Secrets.Why+")")
	}
	if len(i.secrets.Kept) > 0 {
		weaker = append(weaker, "credential stores left readable, the server needs a path beneath them: "+strings.Join(i.secrets.Kept, ", "))
	}
	switch {
	case i.HostRoot && i.Secrets.Applied:
		weaker = append(weaker, "root-owned host files readable outside the hidden credential stores (the server runs as the host's uid 0, without capabilities)")
	case i.HostRoot:
		weaker = append(weaker, "root-owned host files readable (the server runs as the host's uid 0, without capabilities)")
	}
	if i.Quota.Name != "" && !i.Quota.Applied {
		weaker = append(weaker, "sandbox size sampled, not enforced: writes can pass sandbox.max_mib until the size observer stops the server (quota: "+i.Quota.Why+")")
	}
	if len(i.cgroupUnset) > 0 {
		weaker = append(weaker, "no "+strings.Join(i.cgroupUnset, " or ")+" (the cgroup leaf's controllers: "+orNone(i.CgroupControllers)+")")
	}
	if len(weaker) == 0 {
		return strings.Join(parts, " ")
	}
	return strings.Join(parts, " ") + "; " + strings.Join(weaker, "; ")
}

// short names an applied layer inside its Line group.
func (l Layer) short() string {
	switch l.Name {
	case "pidns":
		if l.Detail != "" {
			return "pidns(" + l.Detail + ")"
		}
		return "pidns"
	case "netns":
		return "netns(" + l.Detail + ")"
	case "landlock-fs", "landlock-net":
		return "landlock(" + l.Detail + ")"
	case "landlock-scope":
		return "landlock-scoped"
	case "mountns":
		return l.Detail
	case "secrets":
		if l.Detail == "" {
			return "hidden" // as probed: how many is the server's (For)
		}
		return l.Detail
	case "caps":
		return "no-caps"
	case "seccomp-notify":
		return "seccomp-notify"
	case "rlimit-fsize":
		return "fsize"
	case "cgroup":
		return l.Detail
	}
	return l.String()
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, " ")
}

// String is Line.
func (i Isolation) String() string { return i.Line() }

// wraps reports whether a shim has anything to apply.
func (i Isolation) wraps() bool {
	return i.Pdeathsig.Applied || i.NoNewPrivs.Applied || i.FileSize.Applied ||
		i.LandlockFS.Applied || i.LandlockNet.Applied || i.LandlockScope.Applied ||
		i.NetNS.Applied || i.PidNS.Applied || i.SeccompNotify.Applied || i.MountNS.Applied
}
