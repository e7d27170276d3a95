package contain

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/internal/seccomp"
)

// Verb in os.Args[1] makes the harness binary act as the shim (see Dispatch).
const Verb = "__sealmark-contain"

// Options says what to ask of the layers Probe found. The zero value asks
// for the layers that need no setting: no_new_privs and Pdeathsig.
type Options struct {
	// SandboxTop is the sandbox's top directory (<tmp>/sealmark-<hex>), an
	// absolute path. With Landlock it is, with /dev/null, the only place
	// the server may write; everything else stays readable. Empty leaves
	// the filesystem unrestricted.
	SandboxTop string
	// AllowPorts are the harness's loopback ports the server may connect
	// to (the loopback listener, the upstream stub). Where Landlock's ABI
	// handles TCP (>= 4), a TCP connect to any other port fails with
	// EACCES; none means no TCP connect at all. With NetNS they are the
	// ports proxied from inside the namespace to the host.
	AllowPorts []int
	// MaxFileBytes caps the size of each file the server writes
	// (RLIMIT_FSIZE): a write past it fails with EFBIG, or kills a program
	// that does not ignore SIGXFSZ. 0 sets no cap.
	MaxFileBytes int64
	// NetNS runs the server in new network and pid namespaces (and a user
	// namespace when the harness is not root). The network has only lo:
	// any non-loopback destination fails with ENETUNREACH, and the
	// AllowPorts on 127.0.0.1 and ::1 reach the harness through a proxy in
	// the shim. A shim stays as the server's parent (pid 1 inside), so the
	// server's exit status comes back as a plain code (128+n for
	// signal n), and the proxy's listeners belong to the shim's pid. When
	// the harness dies, the whole tree dies with the shim. Default off.
	NetNS bool
	// Landlock restricts writes to SandboxTop, TCP connects to AllowPorts
	// and signals to the server's own tree, as far as the kernel's ABI
	// allows. Default off.
	Landlock bool
	// Egress puts the server under a seccomp user-notification filter
	// whose listener the harness answers (see WrapEgress): every connect,
	// sendto with an address, sendmsg and sendmmsg destination and every
	// exec is recorded, and what the policy refuses fails with
	// ENETUNREACH. Only WrapEgress accepts it. Default off.
	Egress bool
	// Lifeline, with NetNS, is the read end of a pipe whose write end the
	// harness holds until it has swept what outlived the server. When the
	// server exits while other processes of its namespace live on, the
	// shims report the server's status at once and the namespace stays
	// until the write end closes (or they all exit, or lingerMax passes),
	// so the harness sees and records what outlived the server instead of
	// the namespace taking it away unseen. If the harness dies, the pipe
	// closes and the namespace ends. nil: the namespace ends with the
	// server. Wrap does not close it.
	Lifeline *os.File
	// Reverse, with NetNS, are ports the server listens on inside its
	// namespace that the harness dials on the host's loopback (an HTTP
	// server's): the shim listens on 127.0.0.1 and ::1 at each and forwards
	// every connection into the namespace, to the same address. The ports
	// must be free on the host. Without NetNS the server listens on the
	// host itself and Reverse does nothing.
	Reverse []int
	// Cgroup starts the server in a cgroup v2 leaf of its own (see
	// Cgroup), where the harness may make one: its members are the
	// server's whole tree, daemons included, and they are killed together.
	// Only WrapEgress accepts it, since the Handoff holds the leaf.
	// Default off.
	Cgroup bool
	// MaxProcs (pids.max) and MaxMemory (memory.max, bytes) limit the
	// cgroup leaf, each only where its controller is offered to the leaf
	// (Isolation.CgroupControllers); Isolation.Line names a limit asked
	// for that is not enforced. 0 sets no limit.
	MaxProcs  int
	MaxMemory int64
	// CPUPercent limits the cgroup leaf's CPU time to that percentage of
	// one CPU: cpu.max on the leaf where its cpu controller is (or can be)
	// enabled, else a cgroup v1 cpu group the shim joins. It is for load
	// tests (a server starved as on a loaded machine); where it cannot
	// apply, Cgroup.CPULimited says why, and the isolation line does not
	// name it. 0 sets no limit.
	CPUPercent int
	// SandboxTmp, with NetNS and a SandboxTop, is the sandbox's temporary
	// directory (beneath SandboxTop): the server sees it at /tmp and
	// /var/tmp, in a mount namespace where the rest of the host is
	// read-only and /proc is the server's own (Isolation.MountNS). Empty
	// keeps the host's temp directories, read-only.
	SandboxTmp string
	// Services are host endpoints outside the sandbox the server may
	// reach (sandbox.services). A tcp one's port is allowed like
	// AllowPorts (and, with NetNS, proxied into the namespace); a unix one
	// is allowed by the egress observer's policy (Policy), which otherwise
	// refuses every pathname unix socket outside SandboxTop.
	Services []Service
	// Homes, with NetNS and a SandboxTop, are the homes whose credential
	// stores (homeStores: .ssh, .aws, .npmrc, ...) the server's mount
	// namespace hides; as root the host's root-only secrets (rootStores:
	// /etc/shadow, the SSH host keys, ...) are hidden too. nil is the
	// harness user's: the home of its uid in the passwd database and the
	// harness's $HOME (credentialHomes); empty hides no home's. A store
	// that holds a path the server needs stays readable, and
	// Isolation.Line says so.
	Homes []string
	// ShowCredentials leaves every credential store readable: the
	// isolation line says "secrets=none(off by config)". Default off.
	ShowCredentials bool
}

// Policy is the egress observer's policy for a server wrapped with o (give
// it to Handoff.Complete): loopback only on AllowPorts and the tcp
// services' ports; pathname unix sockets only beneath SandboxTop or at a
// unix service's path, judged by the socket the server would reach;
// abstract unix sockets only inside the server's own network namespace.
func (o Options) Policy() func(net.Addr) bool {
	var dirs []string
	if o.SandboxTop != "" {
		dirs = []string{o.SandboxTop}
	}
	if o.SandboxTmp != "" {
		// bound at /tmp: a socket there is reached through the bind, not
		// through the sandbox top
		dirs = append(dirs, o.SandboxTmp)
	}
	ns := Probe().For(o).NetNS.Applied
	return seccomp.Contained(append(slices.Clone(o.AllowPorts), servicePorts(o.Services)...), dirs, serviceSockets(o.Services), ns)
}

func (o Options) limits() cgroupLimits {
	return cgroupLimits{Pids: o.MaxProcs, Memory: o.MaxMemory, CPUPercent: o.CPUPercent}
}

func (o Options) check() error {
	if o.SandboxTop != "" && !filepath.IsAbs(o.SandboxTop) {
		return fmt.Errorf("contain: sandbox top %q is not an absolute path", o.SandboxTop)
	}
	for _, p := range o.AllowPorts {
		if p < 1 || p > 65535 {
			return fmt.Errorf("contain: allowed port %d is not a TCP port", p)
		}
	}
	for _, p := range o.Reverse {
		if p < 1 || p > 65535 {
			return fmt.Errorf("contain: reverse port %d is not a TCP port", p)
		}
	}
	if o.MaxFileBytes < 0 {
		return fmt.Errorf("contain: negative file size cap %d", o.MaxFileBytes)
	}
	if o.MaxProcs < 0 || o.MaxMemory < 0 || o.CPUPercent < 0 {
		return fmt.Errorf("contain: negative cgroup limit (pids %d, memory %d, cpu %d%%)", o.MaxProcs, o.MaxMemory, o.CPUPercent)
	}
	return nil
}

// dispatched is set by Dispatch: only a program that calls it can act as
// the shim.
var dispatched atomic.Bool

const notDispatched = "contain.Dispatch is not called by this program"

// Wrap returns a spec that starts the server through the shim: the
// harness binary (os.Executable) with Verb, which applies every layer that
// Probe found and o asks for, then runs spec's program with exactly spec's
// environment, arguments and working directory. Where nothing applies
// (not Linux) it returns spec unchanged. It fails when o is invalid, when
// spec.Path is not absolute, or on Linux when the program never called
// Dispatch. Probe().ForServer(o, spec).Line() says what the wrapped
// server gets.
func Wrap(spec launch.Spec, o Options) (launch.Spec, error) {
	if o.Egress {
		return spec, errors.New("contain: Options.Egress needs WrapEgress, which returns the listener's hand-off")
	}
	if o.Cgroup {
		return spec, errors.New("contain: Options.Cgroup needs WrapEgress, whose Handoff holds the cgroup leaf")
	}
	if err := checkWrap(spec, o); err != nil {
		return spec, err
	}
	out, _, err := wrapWith(Probe().ForServer(o, spec), spec, o)
	return out, err
}

// WrapEgress is Wrap for Options with Egress or Cgroup: it also returns
// the hand-off that gives the harness the egress observer once the server
// is started, and holds the server's cgroup leaf (Handoff.Cgroup), already
// made and named in the returned spec's CgroupFD. The Handoff is nil when
// neither the seccomp nor the cgroup layer applies
// (Probe().For(o).SeccompNotify and .Cgroup say why); its methods accept
// that.
//
//	spec, hand, err := contain.WrapEgress(spec, opts)
//	if err != nil {
//		return err
//	}
//	proc, err := launch.Start(spec)
//	if err != nil {
//		hand.Cancel()
//		return err
//	}
//	obs, err := egress.Take(func(sink seccomp.Sink) (seccomp.Supervisor, error) {
//		return hand.Complete(proc.Pid(), seccomp.Ports(opts.AllowPorts...), sink)
//	})
//	if err != nil {
//		proc.Stop(0, time.Second) // the shim exits 125: the server never ran
//		hand.Cgroup().Remove()
//		return err
//	}
//	// obs is nil when egress is not observed, else an observers.Observer;
//	// hand.Cgroup().Members() lists the server's tree while it runs.
//	// To stop: proc.Stop(...), then hand.Cgroup().Remove().
func WrapEgress(spec launch.Spec, o Options) (launch.Spec, *Handoff, error) {
	if err := checkWrap(spec, o); err != nil {
		return spec, nil, err
	}
	return wrapWith(Probe().ForServer(o, spec), spec, o)
}

func checkWrap(spec launch.Spec, o Options) error {
	if err := o.check(); err != nil {
		return err
	}
	if !filepath.IsAbs(spec.Path) {
		return fmt.Errorf("contain: program path %q is not absolute", spec.Path)
	}
	if runtime.GOOS == "linux" && !dispatched.Load() {
		return errors.New("contain: " + notDispatched + ": call it first in main (or TestMain)")
	}
	return nil
}

// wrapWith is WrapEgress with the layers that apply already known.
func wrapWith(iso Isolation, spec launch.Spec, o Options) (launch.Spec, *Handoff, error) {
	var cg *Cgroup
	if iso.Cgroup.Applied {
		var err error
		// v1 groups only where a shim runs to join them
		if cg, err = newCgroup(o.limits(), iso.wraps()); err != nil {
			return spec, nil, fmt.Errorf("contain: cgroup leaf: %w", err)
		}
	}
	out, h, err := wrapShim(iso, spec, o, cg.joins())
	if err != nil || cg == nil {
		if err != nil {
			_, _ = cg.Remove()
		}
		return out, h, err
	}
	if h == nil {
		h = &Handoff{}
	}
	h.cgroup = cg
	out.CgroupFD = cg.fd()
	return out, h, nil
}

// wrapShim puts the shim in front of spec, where it has anything to apply.
func wrapShim(iso Isolation, spec launch.Spec, o Options, join []string) (launch.Spec, *Handoff, error) {
	if !iso.wraps() {
		return spec, nil, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return spec, nil, fmt.Errorf("contain: the shim needs the harness binary: %w", err)
	}
	c := shimConfig{
		Mode:  modeRun,
		Ppid:  os.Getpid(),
		Path:  spec.Path,
		Args:  spec.Args,
		NS:    iso.NetNS.Applied,
		User:  iso.NetNS.Applied && iso.UserNS.Applied,
		Scope: iso.LandlockScope.Applied,
		Join:  join,
	}
	if iso.FileSize.Applied {
		c.FileSize = o.MaxFileBytes
	}
	if iso.LandlockFS.Applied {
		c.Writable = o.SandboxTop
	}
	if iso.LandlockNet.Applied {
		c.Net = true
	}
	if c.Net || c.NS {
		c.Ports = append(slices.Clone(o.AllowPorts), servicePorts(o.Services)...)
	}
	if c.NS {
		c.Reverse = append([]int(nil), o.Reverse...)
	}
	if c.NS && iso.MountNS.Applied && o.SandboxTop != "" {
		c.Mount, c.Top, c.Tmp = true, o.SandboxTop, o.SandboxTmp
		c.PTY = iso.pty
		c.Visible = visibleFor(neededFor(spec, exe, o.Services))
		c.Hide = iso.secrets.Hide
	}
	out := spec
	var h *Handoff
	if iso.SeccompNotify.Applied {
		if h, err = newHandoff(); err != nil {
			return spec, nil, err
		}
		c.Report = 3 + len(out.ExtraFiles)
		out.ExtraFiles = append(append([]*os.File(nil), out.ExtraFiles...), h.shim)
	}
	if c.NS && o.Lifeline != nil {
		c.Life = 3 + len(out.ExtraFiles)
		out.ExtraFiles = append(append([]*os.File(nil), out.ExtraFiles...), o.Lifeline)
	}
	out.Path = exe
	out.Args = c.args()
	return out, h, nil
}

// The shim's modes (os.Args[2]).
const (
	modeRun   = "run"   // started by the harness: apply the layers, exec or spawn the inner shim
	modeInner = "inner" // started by the run shim in new namespaces: pid 1, netns, proxy
	modeProbe = "probe" // started by Probe: try each mechanism, print the results
)

// shimConfig is what the harness tells the shim, in its arguments.
type shimConfig struct {
	Mode     string
	Ppid     int      // the harness's pid, to notice it died before Pdeathsig was set
	FileSize int64    // RLIMIT_FSIZE; 0 leaves it
	Writable string   // Landlock fs: the one writable directory ("" handles no fs access)
	Net      bool     // Landlock net: TCP connect only to Ports
	Scope    bool     // Landlock scopes: signals and abstract unix sockets
	Ports    []int    // the allowed (and, with NS, proxied) loopback ports
	NS       bool     // spawn the inner shim in new namespaces
	User     bool     // with NS: a user namespace too
	Report   int      // the hand-off socket's descriptor: install the seccomp filter; 0 without
	Life     int      // with NS: the harness's lifeline descriptor (Options.Lifeline); 0 without
	Status   int      // the inner shim: where to write the server's status when it lingers; 0 without
	Reverse  []int    // with NS: the server's ports forwarded from the host's loopback into the namespace
	Mount    bool     // with NS: lay the mount namespace out (setupMounts)
	PTY      bool     // with Mount: a private devpts instance at /dev/pts, its ptmx at /dev/ptmx
	Top      string   // with Mount: the sandbox top, writable
	Tmp      string   // with Mount: the sandbox's tmp, the server's /tmp and /var/tmp
	Visible  []string // with Mount: host paths kept visible under the private temp directories
	Hide     []string // with Mount: credential stores hidden (planSecrets)
	Join     []string // cgroup v1 groups the shim joins first (limits v2 does not offer here)
	Path     string   // the server
	Args     []string
}

// args encodes c as the shim's arguments, from Verb on.
func (c shimConfig) args() []string {
	a := []string{Verb, c.Mode, "-ppid=" + strconv.Itoa(c.Ppid)}
	if c.FileSize > 0 {
		a = append(a, "-fsize="+strconv.FormatInt(c.FileSize, 10))
	}
	if c.Writable != "" {
		a = append(a, "-fs="+c.Writable)
	}
	if c.Net {
		a = append(a, "-net")
	}
	if c.Scope {
		a = append(a, "-scope")
	}
	for _, p := range c.Ports {
		a = append(a, "-port="+strconv.Itoa(p))
	}
	if c.NS {
		a = append(a, "-ns")
	}
	if c.User {
		a = append(a, "-userns")
	}
	if c.Report > 0 {
		a = append(a, "-report="+strconv.Itoa(c.Report))
	}
	if c.Life > 0 {
		a = append(a, "-life="+strconv.Itoa(c.Life))
	}
	if c.Status > 0 {
		a = append(a, "-status="+strconv.Itoa(c.Status))
	}
	for _, p := range c.Reverse {
		a = append(a, "-reverse="+strconv.Itoa(p))
	}
	if c.Mount {
		a = append(a, "-mount")
	}
	if c.PTY {
		a = append(a, "-pty")
	}
	if c.Top != "" {
		a = append(a, "-top="+c.Top)
	}
	if c.Tmp != "" {
		a = append(a, "-tmp="+c.Tmp)
	}
	for _, v := range c.Visible {
		a = append(a, "-visible="+v)
	}
	for _, h := range c.Hide {
		a = append(a, "-hide="+h)
	}
	for _, g := range c.Join {
		a = append(a, "-join="+g)
	}
	a = append(a, "--", c.Path)
	return append(a, c.Args...)
}

// parseShim decodes the arguments after Verb.
func parseShim(args []string) (shimConfig, error) {
	var c shimConfig
	if len(args) == 0 {
		return c, errors.New("no mode")
	}
	c.Mode = args[0]
	switch c.Mode {
	case modeRun, modeInner, modeProbe:
	default:
		return c, fmt.Errorf("unknown mode %q", c.Mode)
	}
	fs := flag.NewFlagSet(Verb, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&c.Ppid, "ppid", 0, "")
	fs.Int64Var(&c.FileSize, "fsize", 0, "")
	fs.StringVar(&c.Writable, "fs", "", "")
	fs.BoolVar(&c.Net, "net", false, "")
	fs.BoolVar(&c.Scope, "scope", false, "")
	fs.Func("port", "", func(s string) error {
		p, err := strconv.Atoi(s)
		if err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("bad port %q", s)
		}
		c.Ports = append(c.Ports, p)
		return nil
	})
	fs.BoolVar(&c.NS, "ns", false, "")
	fs.BoolVar(&c.User, "userns", false, "")
	fs.IntVar(&c.Report, "report", 0, "")
	fs.IntVar(&c.Life, "life", 0, "")
	fs.IntVar(&c.Status, "status", 0, "")
	fs.Func("reverse", "", func(s string) error {
		p, err := strconv.Atoi(s)
		if err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("bad port %q", s)
		}
		c.Reverse = append(c.Reverse, p)
		return nil
	})
	fs.BoolVar(&c.Mount, "mount", false, "")
	fs.BoolVar(&c.PTY, "pty", false, "")
	fs.StringVar(&c.Top, "top", "", "")
	fs.StringVar(&c.Tmp, "tmp", "", "")
	fs.Func("visible", "", func(s string) error { c.Visible = append(c.Visible, s); return nil })
	fs.Func("hide", "", func(s string) error {
		if !filepath.IsAbs(s) {
			return fmt.Errorf("hidden path %q is not absolute", s)
		}
		c.Hide = append(c.Hide, s)
		return nil
	})
	fs.Func("join", "", func(s string) error { c.Join = append(c.Join, s); return nil })
	if err := fs.Parse(args[1:]); err != nil {
		return c, err
	}
	if c.Mode == modeProbe {
		return c, nil
	}
	rest := fs.Args()
	if len(rest) == 0 || !filepath.IsAbs(rest[0]) {
		return c, fmt.Errorf("no absolute program path after the flags: %s", strings.Join(rest, " "))
	}
	c.Path, c.Args = rest[0], rest[1:]
	return c, nil
}

// IsShim reports whether a process's argv is the shim's: in Options.NetNS
// mode two shims stay in the server's process tree (and the inner one
// holds the proxy's listeners), which observers should not count as the
// server's doing.
func IsShim(argv []string) bool { return len(argv) > 1 && argv[1] == Verb }
