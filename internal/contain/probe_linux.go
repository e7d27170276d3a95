package contain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/capbuf"
	"github.com/sealmark/sealmark/internal/quota"
)

// probeTimeout bounds one probe child.
const probeTimeout = 5 * time.Second

var (
	probeOnce sync.Once
	probed    Isolation
)

// Probe tries each mechanism once per process, in a child started the way
// a server would be (the shim's own binary, in new namespaces where that
// works), and returns what applied and the exact error of each refusal.
// The result is cached; only Subreaper is read afresh on every call, since
// the harness may turn it on later (process.EnableSubreaper).
func Probe() Isolation {
	probeOnce.Do(func() { probed = probe() })
	i := probed
	i.Subreaper = subreaper()
	return i
}

func subreaper() Layer {
	var on int32
	if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&on)), 0, 0, 0); err != nil {
		return refused("subreaper", "prctl(PR_GET_CHILD_SUBREAPER): "+err.Error())
	}
	if on == 0 {
		return refused("subreaper", "not enabled by the harness")
	}
	return applied("subreaper", "")
}

// probeReport is what a probe child prints: "" for each mechanism that
// worked, the error otherwise.
type probeReport struct {
	Pid           int    `json:"pid"`
	NoNewPrivs    string `json:"no_new_privs"`
	FileSize      string `json:"rlimit_fsize"`
	NetNS         string `json:"netns"`
	LandlockABI   int    `json:"landlock_abi"`
	LandlockFS    string `json:"landlock_fs"`
	LandlockNet   string `json:"landlock_net"`
	LandlockScope string `json:"landlock_scope"`
	Seccomp       string `json:"seccomp_notify"`
	MountNS       string `json:"mountns"`
	IPCUTS        string `json:"ipc_uts"`
	Caps          string `json:"caps"`
	Secrets       string `json:"secrets"`
	PTY           string `json:"pty"`
}

func probe() Isolation {
	i := Isolation{
		Pgid:      applied("pgid", ""),
		Subreaper: subreaper(),
		Quota:     probeQuota(),
	}
	shim := []*Layer{&i.Pdeathsig, &i.NoNewPrivs, &i.FileSize, &i.LandlockFS, &i.LandlockNet,
		&i.LandlockScope, &i.NetNS, &i.PidNS, &i.UserNS, &i.MountNS, &i.Secrets, &i.IPCUTS, &i.Caps, &i.SeccompNotify, &i.Cgroup}
	names := []string{"pdeathsig", "no_new_privs", "rlimit-fsize", "landlock-fs", "landlock-net",
		"landlock-scope", "netns", "pidns", "userns", "mountns", "secrets", "ipc+uts", "caps", "seccomp-notify", "cgroup"}
	refuseAll := func(why string) Isolation {
		for k, l := range shim {
			*l = refused(names[k], why)
		}
		return i
	}
	if !dispatched.Load() {
		return refuseAll(notDispatched)
	}
	exe, err := os.Executable()
	if err != nil {
		return refuseAll("no harness binary for the shim: " + err.Error())
	}

	i.Cgroup, i.CgroupControllers = cgroupProber(exe)

	// Namespaces first: the same clone the outer shim will make.
	// A user namespace first, for root too: its capabilities then reach
	// nothing outside. Root falls back to none where user namespaces are
	// off.
	root := os.Geteuid() == 0
	tries := []bool{true}
	if root {
		tries = append(tries, false)
	}
	var nsErrs []string
	var rep probeReport
	ns, user := false, false
	for _, u := range tries {
		r, err := probeRunner(exe, nsAttr(u))
		if err == nil {
			rep, ns, user = r, true, u
			break
		}
		nsErrs = append(nsErrs, nsFlags(u)+": "+err.Error())
	}
	if !ns {
		r, err := probeRunner(exe, &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL})
		if err != nil {
			return refuseAll("probe child: " + err.Error())
		}
		rep = r
	}

	i.Pdeathsig = applied("pdeathsig", "")
	i.HostRoot = root
	i.NoNewPrivs = layerOf("no_new_privs", "", rep.NoNewPrivs)
	i.FileSize = layerOf("rlimit-fsize", "", rep.FileSize)
	i.LandlockABI = rep.LandlockABI
	i.LandlockFS = layerOf("landlock-fs", fmt.Sprintf("abi%d", rep.LandlockABI), rep.LandlockFS)
	i.LandlockNet = layerOf("landlock-net", "tcp-connect", rep.LandlockNet)
	i.LandlockScope = layerOf("landlock-scope", "signal+abstract-unix", rep.LandlockScope)
	i.SeccompNotify = layerOf("seccomp-notify", "", rep.Seccomp)
	switch {
	case !ns:
		why := strings.Join(nsErrs, "; ")
		i.PidNS, i.UserNS, i.NetNS = refused("pidns", why), refused("userns", why), refused("netns", why)
		i.MountNS, i.IPCUTS, i.Caps = refused("mountns", why), refused("ipc+uts", why), refused("caps", why)
		i.Secrets = refused("secrets", why)
		if root && len(nsErrs) > 0 {
			i.UserNS = refused("userns", nsErrs[len(nsErrs)-1])
		}
	case rep.Pid != 1:
		why := fmt.Sprintf("the probe child is pid %d, not 1", rep.Pid)
		i.PidNS, i.UserNS, i.NetNS = refused("pidns", why), refused("userns", why), refused("netns", why)
		i.MountNS, i.IPCUTS, i.Caps = refused("mountns", why), refused("ipc+uts", why), refused("caps", why)
		i.Secrets = refused("secrets", why)
	default:
		detail := ""
		i.UserNS = refused("userns", "not needed as root")
		if user {
			detail = "userns"
			i.UserNS = applied("userns", "")
		}
		i.PidNS = applied("pidns", detail)
		i.NetNS = layerOf("netns", "lo-only", rep.NetNS)
		i.MountNS = layerOf("mountns", "ro-host+private-tmp+own-proc", rep.MountNS)
		if i.MountNS.Applied {
			i.pty, i.ptyWhy = rep.PTY == "", rep.PTY
			if i.pty {
				i.MountNS.Detail += "+own-pts"
			}
		}
		i.Secrets = layerOf("secrets", "", rep.Secrets)
		i.IPCUTS = layerOf("ipc+uts", "", rep.IPCUTS)
		i.Caps = layerOf("caps", "", rep.Caps)
	}
	return i
}

// probeQuota asks whether a sandbox can have a size limit of its own: a
// one-page tmpfs mounted nowhere (quota.Try), which leaves nothing to
// clean up whatever ends the harness. Only a kernel without that
// interface has it mounted on a directory, probeQuotaDir's.
func probeQuota() Layer {
	err := quota.Try()
	if errors.Is(err, errors.ErrUnsupported) {
		return probeQuotaDir()
	}
	if err != nil {
		return refused("tmpfs", strings.TrimPrefix(err.Error(), "quota: "))
	}
	return applied("tmpfs", "")
}

// probeQuotaDir mounts a one-page tmpfs on a new temporary directory and
// takes it away again.
func probeQuotaDir() Layer {
	start, _ := processStart(os.Getpid())
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-%d-", quotaProbePrefix, os.Getpid(), start))
	if err != nil {
		return refused("tmpfs", err.Error())
	}
	defer os.Remove(dir)
	if err := quota.Mount(dir, 4096); err != nil {
		return refused("tmpfs", strings.TrimPrefix(err.Error(), "quota: "))
	}
	if err := quota.Unmount(dir); err != nil {
		return refused("tmpfs", strings.TrimPrefix(err.Error(), "quota: "))
	}
	return applied("tmpfs", "")
}

func layerOf(name, detail, err string) Layer {
	if err != "" {
		return refused(name, err)
	}
	return applied(name, detail)
}

// probeRunner is runProbe and cgroupProber probeCgroup; tests replace
// them to refuse a mechanism.
var (
	probeRunner  = runProbe
	cgroupProber = probeCgroup
)

// runProbe runs the harness binary as a probe child with attr and decodes
// its report.
func runProbe(exe string, attr *syscall.SysProcAttr) (probeReport, error) {
	var rep probeReport
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, Verb, modeProbe)
	cmd.Env = []string{}
	cmd.Dir = "/"
	cmd.SysProcAttr = attr
	cmd.WaitDelay = time.Second
	out := &capbuf.Buffer{Max: 64 << 10}
	errOut := &capbuf.Buffer{Max: 4 << 10}
	cmd.Stdout, cmd.Stderr = out, errOut
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errOut.String()); msg != "" {
			return rep, fmt.Errorf("%w (%s)", err, msg)
		}
		return rep, err
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return rep, fmt.Errorf("probe report: %w", err)
	}
	return rep, nil
}

// probeChild tries each mechanism on itself and prints a probeReport.
// It runs on a locked thread (see shimMain).
func probeChild() int {
	rep := probeReport{Pid: os.Getpid()}
	rep.FileSize = errString(tryFileSize())
	rep.NetNS = "not in a new pid namespace"
	rep.MountNS, rep.IPCUTS, rep.Caps, rep.Secrets = rep.NetNS, rep.NetNS, rep.NetNS, rep.NetNS
	if rep.Pid == 1 {
		rep.NetNS = errString(tryNetNS())
		rep.MountNS = errString(tryMounts())
		rep.Secrets, rep.PTY = rep.MountNS, "needs mountns"
		if rep.MountNS == "" {
			rep.Secrets = errString(tryHide())
			rep.PTY = errString(tryPTY())
		}
		rep.IPCUTS = errString(tryIPCUTS())
	}
	rep.NoNewPrivs = errString(unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
	abi, err := landlockABI()
	rep.LandlockABI = abi
	if err != nil {
		rep.LandlockFS, rep.LandlockNet, rep.LandlockScope = err.Error(), err.Error(), err.Error()
	} else {
		p := landlockPolicy{Writable: []string{os.DevNull}}
		if abi >= llABINet {
			p.Net, p.Ports = true, []int{1}
		} else {
			rep.LandlockNet = fmt.Sprintf("landlock ABI %d cannot restrict TCP (needs %d)", abi, llABINet)
		}
		if abi >= llABIScope {
			p.Scope = true
		} else {
			rep.LandlockScope = fmt.Sprintf("landlock ABI %d has no scopes (needs %d)", abi, llABIScope)
		}
		if err := restrictSelf(abi, p); err != nil {
			rep.LandlockFS = err.Error()
			rep.LandlockNet, rep.LandlockScope = err.Error(), err.Error()
		}
	}
	rep.Seccomp = errString(trySeccompNotify())
	if rep.Pid == 1 {
		rep.Caps = errString(dropCaps())
	}
	b, _ := json.Marshal(rep)
	os.Stdout.Write(append(b, '\n'))
	return 0
}

func tryFileSize() error {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_FSIZE, &lim); err != nil {
		return fmt.Errorf("getrlimit(RLIMIT_FSIZE): %w", err)
	}
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &lim); err != nil {
		return fmt.Errorf("setrlimit(RLIMIT_FSIZE): %w", err)
	}
	return nil
}

// tryNetNS enters a loopback-only network namespace and checks that a
// connection over lo works there.
func tryNetNS() error {
	if err := enterLoopbackNet(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening on lo: %w", err)
	}
	defer ln.Close()
	c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second)
	if err != nil {
		return fmt.Errorf("connecting over lo: %w", err)
	}
	c.Close()
	return nil
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
