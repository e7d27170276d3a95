//go:build unix

package contain_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/launch"
)

// childArg in os.Args[1] makes the test binary act as a fake server; the
// mode and its arguments follow.
const childArg = "contain-test-child"

func TestMain(m *testing.M) {
	contain.Dispatch()
	if len(os.Args) >= 3 && os.Args[1] == childArg {
		// syscall.Exit skips the race detector's one-second sleep at exit.
		syscall.Exit(runChild(os.Args[2], os.Args[3:]))
	}
	os.Exit(m.Run())
}

// result is what a child prints: one JSON object on one line.
type result map[string]any

func (r result) str(k string) string { s, _ := r[k].(string); return s }

func emit(r result) int {
	b, _ := json.Marshal(r)
	os.Stdout.Write(append(b, '\n'))
	return 0
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

// children are the fake servers, by mode.
var children = map[string]func(args []string) int{
	// env prints its environment, working directory and arguments.
	"env": func(args []string) int {
		dir, _ := os.Getwd()
		return emit(result{"env": os.Environ(), "dir": dir, "args": args})
	},
	// write creates the file args[0] and writes a byte to it.
	"write": func(args []string) int {
		return emit(result{"err": errText(os.WriteFile(args[0], []byte("x"), 0o600))})
	},
	// big writes args[1] bytes to the new file args[0].
	"big": func(args []string) int {
		n, _ := strconv.Atoi(args[1])
		f, err := os.Create(args[0])
		if err != nil {
			return emit(result{"err": errText(err)})
		}
		_, err = f.Write(make([]byte, n))
		f.Close()
		fi, _ := os.Stat(args[0])
		return emit(result{"err": errText(err), "size": fi.Size()})
	},
	// connect dials args[0] and reads one line from it.
	"connect": func(args []string) int {
		c, err := net.DialTimeout("tcp", args[0], 3*time.Second)
		if err != nil {
			return emit(result{"err": errText(err)})
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(3 * time.Second))
		b, err := io.ReadAll(io.LimitReader(c, 100))
		return emit(result{"err": errText(err), "read": string(b)})
	},
	// signal sends signal 0 to pid args[0].
	"signal": func(args []string) int {
		pid, _ := strconv.Atoi(args[0])
		return emit(result{"err": errText(syscall.Kill(pid, 0))})
	},
	// net lists the interfaces and its pid; when lo is the only interface
	// it also tries a documentation address (RFC 5737), which can then
	// leave nowhere.
	"net": func(args []string) int {
		ifs, err := net.Interfaces()
		if err != nil {
			return emit(result{"err": errText(err)})
		}
		var names []string
		for _, i := range ifs {
			names = append(names, i.Name)
		}
		r := result{"ifaces": names, "pid": os.Getpid(), "nspid": nsPid()}
		if len(names) == 1 && names[0] == "lo" {
			c, err := net.DialTimeout("tcp", "192.0.2.1:80", 2*time.Second)
			if err == nil {
				c.Close()
			}
			r["egress"] = errText(err)
		}
		return emit(r)
	},
	// spawn starts args[0] sleepers (/bin/sleep), counts how many started
	// and the first error, prints both and sleeps.
	"spawn": func(args []string) int {
		n, _ := strconv.Atoi(args[0])
		started, first := 0, ""
		for range n {
			cmd := exec.Command("/bin/sleep", "30")
			if err := cmd.Start(); err != nil {
				if first == "" {
					first = errText(err)
				}
				continue
			}
			started++
		}
		emit(result{"started": started, "err": first})
		time.Sleep(time.Hour)
		return 0
	},
	// eat touches args[0] MiB of memory, then prints how much it holds.
	"eat": func(args []string) int {
		n, _ := strconv.Atoi(args[0])
		var held [][]byte
		for range n {
			b := make([]byte, 1<<20)
			for i := range b {
				b[i] = 1
			}
			held = append(held, b)
		}
		return emit(result{"mib": len(held)})
	},
	// daemon starts a sleeper in a session of its own, prints its pid and
	// sleeps too.
	"daemon": func(args []string) int {
		exe, _ := os.Executable()
		cmd := exec.Command(exe, childArg, "sleep")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			return emit(result{"err": errText(err)})
		}
		emit(result{"daemon": cmd.Process.Pid, "pid": os.Getpid()})
		time.Sleep(time.Hour)
		return 0
	},
	// harness wraps a server that sleeps, marked with args[0], starts it
	// in a group of its own as launch does, prints its pid and sleeps.
	"harness": func(args []string) int {
		exe, _ := os.Executable()
		spec, err := contain.Wrap(launch.Spec{Path: exe, Args: []string{childArg, "sleep"}, Env: []string{args[0]}, Dir: "/"}, contain.Options{})
		if err != nil {
			return emit(result{"err": errText(err)})
		}
		cmd := exec.Command(spec.Path, spec.Args...)
		cmd.Env = spec.Env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			return emit(result{"err": errText(err)})
		}
		emit(result{"server": cmd.Process.Pid})
		time.Sleep(time.Hour)
		return 0
	},
	// egress waits for a line on stdin, then connects to args[0] (reading
	// one line) and to args[1], sends a UDP datagram to args[2] with
	// sendto and another with sendmsg, runs /bin/true x, and tries
	// io_uring_setup; it prints each error.
	"egress": func(args []string) int {
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		r := result{}
		if c, err := net.DialTimeout("tcp", args[0], 3*time.Second); err != nil {
			r["allowed"] = errText(err)
		} else {
			_ = c.SetDeadline(time.Now().Add(3 * time.Second))
			b, err := io.ReadAll(io.LimitReader(c, 100))
			r["allowed"], r["read"] = errText(err), string(b)
			c.Close()
		}
		c, err := net.DialTimeout("tcp", args[1], 3*time.Second)
		if err == nil {
			c.Close()
		}
		r["denied"] = errText(err)
		if pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}); err != nil {
			r["udp"] = errText(err)
		} else {
			to, _ := net.ResolveUDPAddr("udp", args[2])
			_, err := pc.WriteToUDP([]byte("sendto"), to)
			r["sendto"] = errText(err)
			_, _, err = pc.WriteMsgUDP([]byte("sendmsg"), nil, to)
			r["sendmsg"] = errText(err)
			pc.Close()
		}
		r["exec"] = errText(exec.Command("/bin/true", "x").Run())
		_, _, errno := syscall.Syscall(425, 1, 0, 0) // io_uring_setup(1, NULL)
		r["io_uring"] = errText(errno)
		return emit(r)
	},
	// cgroup prints its cgroup v2 path (the "0::" line of
	// /proc/self/cgroup).
	"cgroup": func([]string) int {
		b, err := os.ReadFile("/proc/self/cgroup")
		for _, line := range strings.Split(string(b), "\n") {
			if p, ok := strings.CutPrefix(line, "0::"); ok {
				return emit(result{"cgroup": p})
			}
		}
		return emit(result{"err": errText(err)})
	},
	"sleep": func([]string) int {
		time.Sleep(time.Hour)
		return 0
	},
	// serve listens on args[0] and answers every connection with the
	// interfaces it sees, as a server started for its URL would.
	"serve": func(args []string) int {
		ln, err := net.Listen("tcp", args[0])
		if err != nil {
			return emit(result{"err": errText(err)})
		}
		ifs, _ := net.Interfaces()
		var names []string
		for _, i := range ifs {
			names = append(names, i.Name)
		}
		for {
			c, err := ln.Accept()
			if err != nil {
				return 1
			}
			fmt.Fprintf(c, "served from %s\n", strings.Join(names, ","))
			c.Close()
		}
	},
	// linger starts a daemon in a session of its own, prints its pid and
	// exits 7 at once: its daemon outlives it.
	"linger": func(args []string) int {
		exe, _ := os.Executable()
		cmd := exec.Command(exe, childArg, "sleep")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			return emit(result{"err": errText(err)})
		}
		emit(result{"daemon": cmd.Process.Pid})
		return 7
	},
	// read reads, beneath the home args[1], each of secretFiles, and
	// /etc/shadow: for each its error, its size and whether it holds the
	// canary args[0] (never its text: /etc/shadow is the host's). The
	// paths after the home are the server's to need, not read.
	"read": func(args []string) int {
		r := result{}
		paths := []string{"/etc/shadow"}
		for _, f := range secretFiles {
			paths = append(paths, filepath.Join(args[1], f))
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			r[p] = map[string]any{"err": errText(err), "bytes": len(b), "canary": strings.Contains(string(b), args[0])}
		}
		return emit(r)
	},
	// exit exits with status args[0].
	"exit": func(args []string) int {
		n, _ := strconv.Atoi(args[0])
		return n
	},
}

// secretFiles are the files of a fake home the "read" child reads: in
// stores the harness hides (a directory, a file, one found through a link),
// and in one a path argument keeps readable.
var secretFiles = []string{".ssh/id_rsa", ".npmrc", ".config/gh/hosts.yml", ".aws/credentials", ".kube/config"}

func runChild(mode string, args []string) int {
	run, ok := children[mode]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown child mode %q\n", mode)
		return 2
	}
	return run(args)
}

// nsPid returns the NSpid line of /proc/self/status: the process's pid in
// each pid namespace it is in, outermost first.
func nsPid() string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "NSpid:"); ok {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return ""
}
