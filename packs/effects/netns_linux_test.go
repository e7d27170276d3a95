package effects_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/fixture/effectsserver"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// insideEnv marks the test binary re-run inside the network namespace.
const insideEnv = "SEALMARK_EFFECTS_INSIDE_NETNS"

// TestOnlyLoopback runs the effects pack (against a twin that fetches
// whatever it is given and tries the network on every read) inside a new
// network namespace whose only interface is lo, and proves that the
// harness needed nothing else and tried nothing else: the findings that
// need the listener and the upstream stub are there, and the namespace's
// IP counters show no packet sent without a route (IPv4 OutNoRoutes,
// IPv6 Ip6OutNoRoutes) and none on any interface but lo. The server runs
// in a namespace of its own inside that one, so what it tries counts
// there, not here.
func TestOnlyLoopback(t *testing.T) {
	if os.Getenv(insideEnv) == "1" {
		inside(t)
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, "-test.run=^TestOnlyLoopback$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), insideEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() != 0 {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(err.Error(), "operation not permitted") {
		t.Skipf("a network namespace cannot be made here: %v", err)
	}
	t.Logf("inside a network namespace with only lo:\n%s", out)
	if err != nil {
		t.Fatalf("the run inside the namespace failed: %v", err)
	}
	if !strings.Contains(string(out), "--- PASS: TestOnlyLoopback") {
		t.Fatal("the test did not run inside the namespace")
	}
}

// inside is TestOnlyLoopback in the namespace.
func inside(t *testing.T) {
	ifaces := interfaces(t)
	if len(ifaces) != 1 || ifaces[0] != "lo" {
		t.Fatalf("interfaces %v, want only lo", ifaces)
	}
	loUp(t)
	before := noRoutes(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := packtest.Run(t.TempDir(), config(false, self, effectsserver.Verb, "-flaws=no-filter,network-call", "-allow={upstream}",
		"-outside=127.0.0.1:9", "-dns=127.0.0.53:53"))
	if err != nil {
		t.Fatal(err)
	}
	expect(t, rep, map[string][]string{
		"EFFECTS-SSRF-LOOPBACK": loopbackFound, "EFFECTS-SSRF-IPV6-LOOPBACK": ipv6Found,
		"EFFECTS-SSRF-LOCALHOST": localhostFound, "EFFECTS-SSRF-DECIMAL-IPV4": decimalFound,
		"EFFECTS-SSRF-HEX-IPV4": hexFound, "EFFECTS-SSRF-IPV4-MAPPED": mappedFound,
		"EFFECTS-SSRF-REDIRECT": redirectFound,
		"EFFECTS-NETWORK":       {`info: read_note(name="sealmark-{token}") tried the network: connect 127.0.0.1:9, DNS 127.0.0.53:53`},
	})
	after := noRoutes(t)
	if after != before {
		t.Errorf("packets sent without a route during the run: %v before, %v after", before, after)
	}
	if got := interfaces(t); len(got) != 1 {
		t.Errorf("interfaces after the run %v, want only lo", got)
	}
	for name, n := range deviceCounts(t) {
		if name != "lo" && n != 0 {
			t.Errorf("interface %s sent %d packets", name, n)
		}
	}
}

// interfaces lists the namespace's interfaces from /proc/net/dev.
func interfaces(t *testing.T) []string {
	var out []string
	for name := range deviceCounts(t) {
		out = append(out, name)
	}
	return out
}

// deviceCounts reads each interface's transmitted packets.
func deviceCounts(t *testing.T) map[string]int64 {
	f, err := os.Open("/proc/net/dev")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan(); i++ {
		if i < 2 {
			continue // two header lines
		}
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) < 10 {
			continue
		}
		n, _ := strconv.ParseInt(fields[9], 10, 64) // transmit packets
		out[strings.TrimSpace(name)] = n
	}
	return out
}

// noRoutes is the namespace's IPv4 OutNoRoutes and IPv6 Ip6OutNoRoutes:
// packets the stack could not send for want of a route, which is what a
// send to any non-loopback address meets here.
func noRoutes(t *testing.T) [2]int64 {
	var out [2]int64
	b, err := os.ReadFile("/proc/net/snmp")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i := 0; i+1 < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "Ip: ") || !strings.HasPrefix(lines[i+1], "Ip: ") {
			continue
		}
		names, values := strings.Fields(lines[i]), strings.Fields(lines[i+1])
		for j, n := range names {
			if n == "OutNoRoutes" && j < len(values) {
				out[0], _ = strconv.ParseInt(values[j], 10, 64)
			}
		}
		break
	}
	if b, err := os.ReadFile("/proc/net/snmp6"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "Ip6OutNoRoutes" {
				out[1], _ = strconv.ParseInt(f[1], 10, 64)
			}
		}
	}
	return out
}

// loUp raises lo, which a new network namespace starts with down.
func loUp(t *testing.T) {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		t.Fatal(err)
	}
	ifr.SetUint16(unix.IFF_UP | unix.IFF_LOOPBACK | unix.IFF_RUNNING)
	if err := unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr); err != nil {
		t.Fatal(err)
	}
}
