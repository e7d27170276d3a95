package sockets

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sealmark/sealmark/observers"
)

// startListener runs the test binary as listenChild and returns its pid and
// the ports it printed by name. It is killed and reaped when the test ends.
func startListener(t *testing.T) (int, map[string]int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = []string{modeVar + "=listen"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		if err := syscall.Kill(-cmd.Process.Pid, 0); err != syscall.ESRCH {
			t.Errorf("the listener's process group is still alive: %v", err)
		}
	})
	ports := map[string]int{}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("the listener exited before it was ready")
			}
			if line == "ready" {
				return cmd.Process.Pid, ports
			}
			name, port, _ := strings.Cut(line, " ")
			ports[name], _ = strconv.Atoi(port)
		case <-timeout:
			t.Fatal("the listener was not ready within 10s")
		}
	}
}

func TestListenersLive(t *testing.T) {
	pid, ports := startListener(t)
	got, err := Listeners([]int{pid})
	if err != nil {
		t.Fatal(err)
	}
	byPort := map[int]Listening{}
	for _, l := range got {
		if l.PID != pid {
			t.Errorf("listener %+v: pid %d, want %d", l, l.PID, pid)
		}
		byPort[l.Port] = l
	}
	check := func(name, proto, addr, scope string) {
		t.Helper()
		l, ok := byPort[ports[name]]
		if !ok {
			t.Errorf("%s on port %d not found in %+v", name, ports[name], got)
			return
		}
		if l.Proto != proto || l.Addr != addr || l.Scope() != scope {
			t.Errorf("%s = %+v, want %s %s %s", name, l, proto, addr, scope)
		}
	}
	check("tcp-lo", "tcp", "127.0.0.1", "loopback")
	check("tcp-all", "tcp", "0.0.0.0", "all-interfaces")
	check("udp-lo", "udp", "127.0.0.1", "loopback")
	if _, ok := ports["tcp6-lo"]; ok {
		check("tcp6-lo", "tcp6", "::1", "loopback")
	}
	for _, name := range []string{"client", "udp-client"} {
		if l, ok := byPort[ports[name]]; ok {
			t.Errorf("%s socket reported as a listener: %+v", name, l)
		}
	}
	if want := len(ports) - 2; len(got) != want { // all but the two clients
		t.Errorf("Listeners = %d sockets %+v, want %d", len(got), got, want)
	}
}

func TestObserverLive(t *testing.T) {
	pid, ports := startListener(t)
	obs := New(func() []int { return []int{pid} })
	obs.Begin("tok-1") // the listeners were there before any probe: no token
	if got := obs.Collect("tok-1"); len(got) != 0 {
		t.Errorf("listeners present before Begin were attributed to the probe: %+v", got)
	}
	recs := obs.Close()
	var listens []observers.Record
	var egress int
	for _, r := range recs {
		switch r.Data["op"] {
		case "listen":
			listens = append(listens, r)
		case "egress-not-observed":
			egress++
			if r.Summary != EgressNotObserved || r.Kind != observers.KindSocket {
				t.Errorf("egress record = %+v", r)
			}
		default:
			t.Errorf("unexpected record %+v", r)
		}
	}
	if egress != 1 {
		t.Errorf("%d egress-not-observed records, want 1", egress)
	}
	if want := len(ports) - 2; len(listens) != want {
		t.Fatalf("%d listen records, want %d: %+v", len(listens), want, listens)
	}
	for _, r := range listens {
		if r.Token != "" || r.Kind != observers.KindSocket || r.Observer != "sockets" || r.Data["pid"] != strconv.Itoa(pid) {
			t.Errorf("listen record = %+v, want no token, kind socket, pid %d", r, pid)
		}
		if r.Data["port"] == strconv.Itoa(ports["tcp-all"]) {
			want := "pid " + strconv.Itoa(pid) + " listens on 0.0.0.0:" + r.Data["port"] + " (all interfaces)"
			if !strings.HasPrefix(r.Summary, want+"; serves ") || r.Data["scope"] != "all-interfaces" {
				t.Errorf("all-interfaces record = %+v, want summary %q", r, want)
			}
		}
	}
	if again := obs.Close(); again != nil {
		t.Errorf("second Close = %+v", again)
	}
}

func TestObserverAttributesToTheOpenProbe(t *testing.T) {
	var tree []int
	obs := New(func() []int { return tree })
	obs.Begin("tok-1")
	if got := obs.Collect("tok-1"); len(got) != 0 {
		t.Fatalf("empty tree: Collect = %+v", got)
	}
	pid, ports := startListener(t)
	tree = []int{pid}
	recs := obs.Collect("tok-1")
	if want := len(ports) - 2; len(recs) != want {
		t.Fatalf("Collect(tok-1) = %d records, want %d: %+v", len(recs), want, recs)
	}
	for _, r := range recs {
		if r.Token != "tok-1" || r.Data["attributed"] != "time" {
			t.Errorf("record %+v, want token tok-1 by time", r)
		}
	}
	if again := obs.Collect("tok-1"); len(again) != 0 {
		t.Errorf("a listener was reported twice: %+v", again)
	}
	if rest := obs.Close(); len(rest) != 1 || rest[0].Data["op"] != "egress-not-observed" {
		t.Errorf("Close = %+v, want only the egress record", rest)
	}
}
