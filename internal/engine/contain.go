package engine

import (
	"cmp"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/environ"
	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/internal/sandbox"
	"github.com/sealmark/sealmark/internal/seccomp"
	"github.com/sealmark/sealmark/observers/egress"
	"github.com/sealmark/sealmark/observers/limits"
)

// contain wraps a server's start in the containment shim: no_new_privs,
// Pdeathsig, a per-file size cap, Landlock (writes only inside the sandbox,
// TCP connects only to the harness's own loopback ports, signals scoped),
// the seccomp egress observer, pid and loopback-only network namespaces
// (with a lifeline the harness holds until what outlived the server is
// swept) and a cgroup leaf, each where this machine allows it and the
// config does not turn it off (Config.LayersOff). Without a sandbox nothing
// is contained. When the shim cannot be used (a binary that does not call
// contain.Dispatch) the server starts uncontained and the report's
// isolation line says why; it says what applied in every case.
func (e *Engine) contain(spec launch.Spec) (launch.Spec, *contain.Handoff, func(net.Addr) bool) {
	if e.sb == nil {
		return spec, nil, nil
	}
	o := layerOptions(e.cfg.LayersOff, e.cfg.MaxMiB, e.sb.Top)
	o.SandboxTmp = e.sb.Tmp
	o.Homes = e.cfg.credentialHomes // nil: the harness user's
	for _, sv := range e.cfg.Services {
		if s, err := contain.ParseService(sv); err == nil { // Validate said so
			o.Services = append(o.Services, s)
		}
	}
	if e.cfg.Start != "" {
		// A server started for its URL listens inside its namespace; the
		// shim forwards the URL's port on the host's loopback to it.
		if p := e.urlPort(); p > 0 {
			o.Reverse = []int{p}
			o.AllowPorts = append(o.AllowPorts, p)
		}
	}
	if o.NetNS {
		if r, w, err := os.Pipe(); err == nil {
			o.Lifeline = r
			e.mu.Lock()
			e.lifeline = append(e.lifeline, w, r)
			e.mu.Unlock()
		}
	}
	for _, name := range []string{"listener", "upstream", "port"} {
		v := e.vars[name]
		if u, err := url.Parse(v); err == nil && u.Port() != "" {
			v = u.Port()
		}
		if p, err := strconv.Atoi(v); err == nil {
			o.AllowPorts = append(o.AllowPorts, p)
		}
	}
	if e.watch != nil && e.watch.loopback != nil {
		if u, err := url.Parse(e.watch.loopback.URL6()); err == nil && u.Port() != "" {
			if p, err := strconv.Atoi(u.Port()); err == nil {
				o.AllowPorts = append(o.AllowPorts, p)
			}
		}
	}
	if o.Cgroup {
		o.MaxProcs, o.MaxMemory = e.cfg.MaxProcs, int64(e.cfg.MaxMemoryMiB)<<20
		o.CPUPercent = e.cfg.CPUPercent
	}
	wrapped, hand, err := contain.WrapEgress(spec, o)
	e.mu.Lock()
	defer e.mu.Unlock()
	observed := ""
	if e.watch != nil {
		observed = "; " + e.watch.line
	}
	if err != nil {
		e.rep.Sandbox.Isolation = "procs=pgid; not contained: " + err.Error() + observed
		return spec, nil, nil
	}
	iso := IsolationFor(contain.Probe(), o, e.cfg.LayersOff, &spec)
	iso.Quota = quotaLayer(iso.Quota, e.cfg.LayersOff, e.cfg.MaxMiB, e.sb)
	e.rep.Sandbox.Isolation = iso.Line() + observed
	e.limits = limitsText(iso, o)
	return wrapped, hand, o.Policy()
}

// prepareMounts makes the mount points every contained start binds onto
// beneath the sandbox's tmp (the sandbox top and the harness binary's
// contain.ProgramTree, when they lie beneath the host's /tmp), before the
// files observer's first snapshot, so they are not taken for the server's
// doing.
func (e *Engine) prepareMounts() {
	if e.sb == nil || slices.Contains(e.cfg.LayersOff, "namespaces") || !contain.Probe().MountNS.Applied {
		return
	}
	paths := []string{e.sb.Top}
	if exe, err := os.Executable(); err == nil {
		paths = append(paths, contain.ProgramTree(exe))
	}
	if e.cfg.Harness != "" {
		paths = append(paths, contain.ProgramTree(e.cfg.Harness))
	}
	if filepath.IsAbs(e.cfg.Command) {
		paths = append(paths, contain.ProgramTree(e.cfg.Command))
	}
	if err := contain.MountPoints(e.sb.Tmp, paths...); err != nil {
		e.warn("containment: " + err.Error())
	}
}

// observeEgress completes the seccomp hand-off of a started server: from
// now on every destination it tries is recorded, and all but the harness's
// own ports, the declared services and the sandbox's unix sockets are
// refused. The egress observer joins the run's observers.
func (e *Engine) observeEgress(hand *contain.Handoff, pid int, policy func(net.Addr) bool) (*egress.Observer, error) {
	if hand == nil {
		return nil, nil
	}
	obs, err := egress.Take(func(sink seccomp.Sink) (seccomp.Supervisor, error) { return hand.Complete(pid, policy, sink) })
	if err != nil || obs == nil {
		return nil, err
	}
	e.mu.Lock()
	e.startEgress = obs
	if e.watch != nil {
		e.watch.all = append(e.watch.all, obs)
		e.watch.egress = true
	}
	e.mu.Unlock()
	return obs, nil
}

// releaseLifelines closes the harness's ends of the namespaces' lifelines
// (contain.Options.Lifeline): a namespace kept for what outlived its
// server ends now. Call it once what outlived the server was swept.
func (e *Engine) releaseLifelines() {
	e.mu.Lock()
	fs := e.lifeline
	e.lifeline = nil
	e.mu.Unlock()
	for _, f := range fs {
		f.Close()
	}
}

// keepCgroup remembers the cgroup leaf a start's server runs in (nil when
// the layer does not apply), so its stop can kill what is left in it.
func (e *Engine) keepCgroup(hand *contain.Handoff) {
	cg := hand.Cgroup()
	if e.cfg.CPUPercent > 0 {
		if err := cg.CPULimited(); err != nil {
			e.warn(fmt.Sprintf("the server's CPU is not limited to %d%%: %v", e.cfg.CPUPercent, err))
		}
	}
	if cg == nil {
		return
	}
	undo := cleanup.Add(func() { _, _ = cg.Remove() })
	e.mu.Lock()
	e.cgroups = append(e.cgroups, cgroupLeaf{cg, undo})
	e.mu.Unlock()
	if e.watch != nil && e.watch.limits != nil {
		e.watch.limits.Add(func() limits.Counts {
			h := cg.Hits()
			return limits.Counts{ProcsRefused: h.ProcsRefused, OOMKills: h.OOMKills}
		})
	}
}

// cgroupLeaf is a start's cgroup leaf and the removal of its signal-path
// cleanup.
type cgroupLeaf struct {
	cg   *contain.Cgroup
	undo func()
}

// removeCgroups kills what is left in the starts' cgroup leaves and
// removes them; what it had to kill is a warning. Call it once what
// outlived the server was recorded.
func (e *Engine) removeCgroups(what string) {
	e.mu.Lock()
	leaves := e.cgroups
	e.cgroups = nil
	e.mu.Unlock()
	for _, l := range leaves {
		killed, err := l.cg.Remove()
		l.undo()
		if len(killed) > 0 {
			e.warn(fmt.Sprintf("%s: %d process(es) in the server's cgroup outlived it and were killed: pids %v", what, len(killed), killed))
		}
		if err != nil {
			e.warn(fmt.Sprintf("%s: removing the server's cgroup: %v", what, err))
		}
	}
}

// urlPort is the TCP port of the server's URL, placeholders expanded, or 0.
func (e *Engine) urlPort() int {
	raw, err := environ.Expand(e.cfg.URL, e.vars)
	if err != nil {
		return 0
	}
	u, err := url.Parse(raw)
	if err != nil {
		return 0
	}
	p, _ := strconv.Atoi(cmp.Or(u.Port(), map[string]string{"http": "80", "https": "443"}[u.Scheme]))
	return p
}

// The process and memory limits of a contained server's cgroup leaf,
// where the machine offers the controllers (the isolation line names
// them): generous for any real server, small next to a fork bomb or a
// runaway allocation. MaxProcs counts tasks: processes and their threads.
const (
	MaxProcs  = 1024
	MaxMemory = 4 << 30
)

// limitsText names the limits iso enforces, "" for none.
func limitsText(iso contain.Isolation, o contain.Options) string {
	if !iso.Cgroup.Applied {
		return ""
	}
	var out []string
	if iso.Enforces("pids.max") {
		out = append(out, fmt.Sprintf("%d tasks", o.MaxProcs))
	}
	if iso.Enforces("memory.max") {
		out = append(out, fmt.Sprintf("%d MiB", o.MaxMemory>>20))
	}
	return strings.Join(out, ", ")
}

// layerOptions is the one mapping of the containment layers (Layers) onto
// contain.Options: each layer on unless off names it, the per-file size
// cap twice sandbox.max_mib. The engine starts servers with it; doctor
// shows what it gives.
func layerOptions(off []string, maxMiB int, top string) contain.Options {
	on := func(layer string) bool { return !slices.Contains(off, layer) }
	o := contain.Options{SandboxTop: top, Landlock: on("landlock"), Egress: on("seccomp"), Cgroup: on("cgroup"), NetNS: on("namespaces"), ShowCredentials: !on("secrets")}
	if o.Cgroup {
		o.MaxProcs, o.MaxMemory = MaxProcs, MaxMemory
	}
	if on("fsize") {
		o.MaxFileBytes = 2 * int64(maxMiB) << 20
	}
	return o
}

// IsolationFor narrows what the machine offers (i, from contain.Probe) to
// what a run with the layers off gets under o, saying "off by config" for
// the file size cap it turned off. Given the server's spec, the credential
// stores counted as hidden are those its server gets (a store holding a
// path it needs stays readable); nil counts those of any server.
func IsolationFor(i contain.Isolation, o contain.Options, off []string, spec *launch.Spec) contain.Isolation {
	if spec != nil {
		i = i.ForServer(o, *spec)
	} else {
		i = i.For(o)
	}
	if slices.Contains(off, "fsize") && !i.FileSize.Applied && i.FileSize.Why == "no limit set" {
		i.FileSize = contain.Layer{Name: i.FileSize.Name, Why: "off by config"}
	}
	return i
}

// Isolation is the containment a run with the layers off gets on a
// machine that offers i (what doctor shows).
func Isolation(i contain.Isolation, off []string, maxMiB int) contain.Isolation {
	iso := IsolationFor(i, layerOptions(off, maxMiB, filepath.Join(os.TempDir(), "sandbox")), off, nil)
	iso.Quota = quotaLayer(iso.Quota, off, maxMiB, nil)
	return iso
}

// quotaLayer is the sandbox size quota a run gets: sb's, once there is a
// sandbox; before, what the machine offers (probed, from contain.Probe)
// for a limit of maxMiB with the layers off.
func quotaLayer(probed contain.Layer, off []string, maxMiB int, sb *sandbox.Sandbox) contain.Layer {
	l := contain.Layer{Name: "tmpfs"}
	switch {
	case slices.Contains(off, "quota"):
		l.Why = "off by config"
		if !probed.Applied && probed.Why != "" {
			l.Why = probed.Why // the machine's refusal is truer still
		}
	case sb != nil && sb.Quota > 0:
		l.Applied, l.Detail = true, fmt.Sprintf("%dMiB", sb.Quota>>20)
	case sb != nil:
		l.Why = cmp.Or(sb.QuotaWhy, "none made")
	case probed.Applied:
		l.Applied, l.Detail = true, fmt.Sprintf("%dMiB", maxMiB)
	default:
		l.Why = cmp.Or(probed.Why, "not probed")
	}
	return l
}

// probeContainment says which containment layers this system has
// (contain.Probe); tests set it to a system without them.
var probeContainment = contain.Probe

// ContainmentMissing is containmentMissing, for sealmark doctor.
func ContainmentMissing(goos string, iso contain.Isolation) string {
	return containmentMissing(goos, iso)
}

// containmentMissing is "no containment on GOOS" when none of the layers
// that keep a server from the host's files and network applies (Landlock,
// the mount and network namespaces, the seccomp egress observer); ""
// when one does.
func containmentMissing(goos string, iso contain.Isolation) string {
	if iso.LandlockFS.Applied || iso.MountNS.Applied || iso.NetNS.Applied || iso.SeccompNotify.Applied {
		return ""
	}
	return "no containment on " + goos
}
