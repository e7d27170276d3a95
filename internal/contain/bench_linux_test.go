package contain_test

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/internal/seccomp"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/observers/egress"
)

// BenchmarkStart measures a start and exit of a server (the test binary
// exiting at once) through launch with each set of layers: the cost each
// adds per start. With the cgroup a leaf is made, used and removed per
// start; with seccomp-notify the hand-off is completed and the observer
// closed per start.
func BenchmarkStart(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	top := b.TempDir()
	spec := launch.Spec{Path: exe, Args: []string{childArg, "exit", "0"}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: top}
	iso := contain.Probe()
	all := contain.Options{SandboxTop: top, AllowPorts: []int{1}, MaxFileBytes: 1 << 20, Landlock: true, NetNS: true}
	allObserved := all
	allObserved.Egress, allObserved.Cgroup = true, true
	for _, c := range []struct {
		name string
		o    *contain.Options
	}{
		{"plain", nil},
		{"shim", &contain.Options{}},
		{"landlock+fsize", &contain.Options{SandboxTop: top, AllowPorts: []int{1}, MaxFileBytes: 1 << 20, Landlock: true}},
		{"seccomp-notify", &contain.Options{Egress: true}},
		{"cgroup", &contain.Options{Cgroup: true}},
		{"netns", &contain.Options{NetNS: true, AllowPorts: []int{1}}},
		{"all", &all},
		{"all+seccomp+cgroup", &allObserved},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.o != nil {
				for _, l := range iso.For(*c.o).Layers() {
					if asked(*c.o, l.Name) && !l.Applied {
						b.Skip(l.Name+":", l.Why)
					}
				}
			}
			for b.Loop() {
				startAndWait(b, spec, c.o)
			}
		})
	}
}

// asked reports whether o asks for the layer the benchmark depends on.
func asked(o contain.Options, layer string) bool {
	switch layer {
	case "netns":
		return o.NetNS
	case "seccomp-notify":
		return o.Egress
	case "cgroup":
		return o.Cgroup
	}
	return false
}

// startAndWait wraps spec with o (nil: not at all), starts it through
// launch, completes the hand-off, waits for it to exit and removes its
// cgroup leaf.
func startAndWait(b *testing.B, spec launch.Spec, o *contain.Options) {
	var hand *contain.Handoff
	if o != nil {
		var err error
		if spec, hand, err = contain.WrapEgress(spec, *o); err != nil {
			b.Fatal(err)
		}
	}
	proc, err := launch.Start(spec)
	if err != nil {
		hand.Cancel()
		b.Fatal(err)
	}
	obs, err := egress.Take(func(sink seccomp.Sink) (seccomp.Supervisor, error) { return hand.Complete(proc.Pid(), nil, sink) })
	if err != nil {
		proc.Stop(0, time.Second)
		hand.Cancel()
		b.Fatal(err)
	}
	proc.WaitExit(10 * time.Second)
	rep := proc.Stop(0, time.Second)
	if obs != nil {
		obs.Close()
	}
	if _, err := hand.Cgroup().Remove(); err != nil {
		b.Fatal(err)
	}
	if rep.Status != "exit status 0" {
		b.Fatalf("server ended with %q; log %q", rep.Status, proc.Log().Tail(200))
	}
}

// BenchmarkIntercepted measures the cost of one call the seccomp egress
// filter intercepts: a server makes b.N blocking connects to an allowed
// loopback port (or b.N fork+execs of /bin/true, b.N opens for writing
// of a file by its absolute path, or b.N deletes of a file that is not
// there: "remove", unlinkat's ENOENT, so the kernel's own work is a
// lookup), each timed inside the server, under the
// shim with and without the filter. open-read, b.N read-only opens of the
// same file, is the hot path the filter keeps in the kernel. The ns/call
// metric is the time per call; ns/op also holds the start, spread over
// b.N.
func BenchmarkIntercepted(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	addr := ln.Addr().String()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	iso := contain.Probe()
	written := b.TempDir() + "/written"
	if err := os.WriteFile(written, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, call := range []string{"connect", "exec", "open-write", "open-read", "remove"} {
		for _, filtered := range []bool{false, true} {
			name := call + "/shim"
			if filtered {
				name = call + "/seccomp-notify"
			}
			b.Run(name, func(b *testing.B) {
				if filtered && !iso.SeccompNotify.Applied {
					b.Skip("seccomp-notify:", iso.SeccompNotify.Why)
				}
				n := strconv.Itoa(b.N)
				args := []string{childArg, "connects", addr, n}
				switch call {
				case "exec":
					args = []string{childArg, "execs", n}
				case "open-write", "open-read":
					args = []string{childArg, "opens", written, n, call}
				case "remove":
					args = []string{childArg, "removes", written + "-absent", n}
				}
				spec := launch.Spec{Path: exe, Args: args, Env: []string{"PATH=/usr/bin:/bin"}, Dir: "/"}
				w, hand, err := contain.WrapEgress(spec, contain.Options{Egress: filtered})
				if err != nil {
					b.Fatal(err)
				}
				proc, err := launch.Start(w)
				if err != nil {
					hand.Cancel()
					b.Fatal(err)
				}
				defer proc.Stop(0, time.Second)
				obs, err := egress.Take(func(sink seccomp.Sink) (seccomp.Supervisor, error) { return hand.Complete(proc.Pid(), nil, sink) })
				if err != nil {
					b.Fatal(err)
				}
				r := readBenchResult(b, proc)
				if e := r.str("err"); e != "" {
					b.Fatal(e)
				}
				if obs != nil {
					// every call was intercepted: recorded, or counted as dropped past the cap
					seen := 0
					for _, rec := range obs.Close() {
						if rec.Kind == observers.KindLoss && rec.Data[observers.KeyReason] == "records" {
							d, _ := strconv.Atoi(rec.Data[observers.KeyCount])
							seen += d
						}
						if rec.Data["op"] == call || (call == "open-read" && rec.Data["op"] == "open-write") {
							seen++
						}
					}
					switch {
					case call == "open-read" && seen > 0:
						b.Fatalf("%d read-only opens intercepted: they must stay in the kernel", seen)
					case call != "open-read" && seen < b.N:
						b.Fatalf("%d %s calls intercepted, want at least %d", seen, call, b.N)
					}
				}
				b.ReportMetric(r["ns"].(float64)/float64(b.N), "ns/call")
			})
		}
	}
}

// readBenchResult reads the server's JSON line (60 s at most).
func readBenchResult(b *testing.B, proc *launch.Process) result {
	lines := make(chan result, 1)
	go func() {
		var r result
		line, _ := bufio.NewReader(proc.Messages()).ReadString('\n')
		_ = json.Unmarshal([]byte(line), &r)
		lines <- r
	}()
	select {
	case r := <-lines:
		return r
	case <-time.After(60 * time.Second):
		b.Fatalf("no result within 60s; log %s", proc.Log().Tail(1000))
		return nil
	}
}

func init() {
	// opens opens the file args[0] args[1] times, for writing (creating
	// and truncating it: what the filter intercepts) when args[2] is
	// "open-write", for reading (what it lets through in the kernel)
	// otherwise, closing it each time, and prints the time spent in
	// open(2) in all, in ns.
	children["opens"] = func(args []string) int {
		n, _ := strconv.Atoi(args[1])
		flags := unix.O_RDONLY | unix.O_CLOEXEC
		if args[2] == "open-write" {
			flags = unix.O_WRONLY | unix.O_CREAT | unix.O_TRUNC | unix.O_CLOEXEC
		}
		var spent time.Duration
		for range n {
			t0 := time.Now()
			fd, err := unix.Open(args[0], flags, 0o600)
			spent += time.Since(t0)
			if err != nil {
				return emit(result{"err": errText(err)})
			}
			unix.Close(fd)
		}
		return emit(result{"ns": spent.Nanoseconds()})
	}
}

func init() {
	// removes deletes the file args[0], which is not there, args[1]
	// times (each fails with ENOENT), and prints the time spent in
	// unlinkat(2) in all, in ns.
	children["removes"] = func(args []string) int {
		n, _ := strconv.Atoi(args[1])
		var spent time.Duration
		for range n {
			t0 := time.Now()
			err := unix.Unlinkat(unix.AT_FDCWD, args[0], 0)
			spent += time.Since(t0)
			if err != unix.ENOENT {
				return emit(result{"err": "unlinkat: " + errText(err)})
			}
		}
		return emit(result{"ns": spent.Nanoseconds()})
	}
}
