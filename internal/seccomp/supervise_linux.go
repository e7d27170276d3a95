package seccomp

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/observers"
)

// Supervise answers the notifications of the seccomp listener fd, which it
// owns from now on (Close closes it), until Close or until every process
// under the filter is gone. allow judges IP and unix destinations; nil
// means Loopback.
//
// Calls it is given: connect, sendto with an address, sendmsg, sendmmsg
// (each destination recorded, Kind "socket"; allowed ones go on, the
// others fail with ENETUNREACH), execve, execveat (recorded, Kind
// "process", always allowed), and, recorded only and always let through
// (Kind "process"), the opens that ask to write, the calls that delete,
// rename, link or make an entry or truncate a file, and the signals sent
// to other processes.
func Supervise(fd int, allow func(addr net.Addr) bool, sink Sink) Supervisor {
	if allow == nil {
		allow = Loopback
	}
	s := &loop{o: sink, allow: allow, fd: fd, rd: &reader{timeout: readTimeout, fetch: readRemote}, done: make(chan struct{})}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(fd) // fails closed: every filtered call gets ENOSYS
		sink.Loss("egress observer not started: eventfd: %v", err)
		close(s.done)
		s.fd, s.wake = -1, -1
		return s
	}
	s.wake = wake
	go s.run()
	return s
}

// loop is the Linux supervisor: one goroutine that polls the listener and
// answers each notification in turn.
type loop struct {
	o     Sink
	allow func(addr net.Addr) bool // the policy for IP and unix destinations
	fd    int                      // the seccomp listener
	wake  int                      // an eventfd that Close writes to stop the loop
	rd    *reader
	done  chan struct{}

	started bool // the server's own exec, the first call of all, was seen
	once    sync.Once
}

func (s *loop) run() {
	defer close(s.done)
	fds := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLIN}, {Fd: int32(s.wake), Events: unix.POLLIN}}
	for {
		fds[0].Revents, fds[1].Revents = 0, 0
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			s.o.Loss("egress observer stopped: poll: %v", err)
			return
		}
		if fds[1].Revents != 0 {
			return // Close
		}
		if fds[0].Revents&unix.POLLIN != 0 {
			if err := s.handle(); err != nil {
				s.o.Loss("egress observer stopped: %v", err)
				return
			}
			continue
		}
		if fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 {
			return // every process under the filter is gone
		}
	}
}

// stop ends the loop, closes the listener and waits (up to d) for
// abandoned reads; it returns what could not be cleaned up.
func (s *loop) Stop(d time.Duration) []string {
	var problems []string
	s.once.Do(func() {
		if s.wake < 0 {
			return
		}
		var one [8]byte
		binary.NativeEndian.PutUint64(one[:], 1)
		_, _ = unix.Write(s.wake, one[:])
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-s.done:
			unix.Close(s.fd)
			unix.Close(s.wake)
		case <-t.C:
			// blocked answering a call: leave the fds to it rather than
			// close them under it
			problems = append(problems, "the egress observer did not stop within "+d.String())
		}
		if !s.rd.wait(d) {
			problems = append(problems, fmt.Sprintf("%d reads of the server's memory still blocked at close", s.rd.stuck.Load()))
		}
	})
	return problems
}

// handle receives one notification and answers it.
func (s *loop) handle() error {
	n, err := recv(s.fd)
	switch {
	case err == unix.ENOENT || err == unix.EINTR:
		return nil // the caller went away (or a signal): nothing to answer
	case err != nil:
		return fmt.Errorf("SECCOMP_IOCTL_NOTIF_RECV: %w", err)
	}
	var c call
	switch int(n.Data.Nr) {
	case unix.SYS_EXECVE, unix.SYS_EXECVEAT:
		c = s.exec(n)
	case unix.SYS_CONNECT:
		c = s.dest(n, "connect", n.Data.Args[1], n.Data.Args[2])
	case unix.SYS_SENDTO:
		c = s.dest(n, "sendto", n.Data.Args[4], n.Data.Args[5])
	case unix.SYS_SENDMSG:
		c = s.sendmsg(n)
	case unix.SYS_SENDMMSG:
		c = s.sendmmsg(n)
	case sysOpen, sysCreat, unix.SYS_OPENAT, unix.SYS_OPENAT2:
		c = s.openWrite(n)
	case unix.SYS_KILL, unix.SYS_TKILL, unix.SYS_TGKILL, unix.SYS_PIDFD_SEND_SIGNAL,
		unix.SYS_RT_SIGQUEUEINFO, unix.SYS_RT_TGSIGQUEUEINFO:
		c = s.signal(n)
	default:
		if _, ok := changeCalls[int(n.Data.Nr)]; ok {
			c = s.change(n)
			break
		}
		c = call{errno: unix.ENOSYS, why: "unexpected system call " + strconv.Itoa(int(n.Data.Nr))}
	}
	// Trust what was read only if the caller is still the one blocked in
	// the call: its pid cannot have been reused while it is.
	if !valid(s.fd, n.ID) {
		s.o.Stale()
		return nil
	}
	start := false
	if !s.started && c.exec {
		// The shim's exec of the server (or, in a pid namespace, of the
		// inner shim's child) is the first call under the filter: it is
		// the server's start, not something a probe made it do.
		s.started, start = true, true
		c.records[0].Data[observers.KeyStart] = "true"
	}
	for _, r := range c.records {
		s.o.Add(r.Kind, r.Summary, r.Data, start)
	}
	s.o.Count(c.allow)
	if err := answer(s.fd, n.ID, c.allow, c.errno); err != nil && err != unix.ENOENT {
		return fmt.Errorf("SECCOMP_IOCTL_NOTIF_SEND: %w", err)
	}
	return nil
}

// call is the verdict on one notification and what it leaves on record.
type call struct {
	allow   bool
	exec    bool
	errno   unix.Errno // when denied
	why     string
	records []observers.Record
}

// dest judges a call with one sockaddr at addr, addrlen long.
func (s *loop) dest(n notif, op string, addr, addrlen uint64) call {
	pid := int(n.Pid)
	if addr == 0 {
		return call{allow: true} // sendto without an address (the filter should not ask)
	}
	if addrlen < 2 || addrlen > maxSockaddr {
		// the kernel refuses it the same way
		return call{errno: unix.EINVAL, records: []observers.Record{sockRecord(pid, op, destination{family: "invalid"}, false, "bad address length "+strconv.FormatUint(addrlen, 10))}}
	}
	b, err := s.rd.read(pid, addr, int(addrlen))
	if err != nil || len(b) < int(addrlen) {
		why := "address unreadable"
		if err != nil {
			why += ": " + err.Error()
		}
		return call{errno: unix.ENETUNREACH, records: []observers.Record{sockRecord(pid, op, destination{family: "unreadable"}, false, why)}}
	}
	d := parseSockaddr(b, op == "connect")
	if d.family == "unix" && !strings.HasPrefix(d.host, "@") {
		return s.unixDest(pid, op, d)
	}
	ok := d.allowed(s.allow)
	c := call{allow: ok, errno: unix.ENETUNREACH}
	if d.family != "unspec" {
		c.records = []observers.Record{sockRecord(pid, op, d, ok, "")}
	}
	return c
}

// unixDest judges a pathname unix socket by the socket the caller would
// reach (see UnixSocket). A refused one fails with EACCES, one that does
// not exist with ENOENT, as the kernel would have answered. The check and
// the kernel's own lookup are two lookups: a server that swaps a link in
// between can win the race (the mount namespace is the boundary then).
func (s *loop) unixDest(pid int, op string, d destination) call {
	u := resolveUnix(pid, d.host)
	d.addr = u
	if u.Path != d.host {
		d.host = u.Path
	}
	ok := d.allowed(s.allow)
	c := call{allow: ok, errno: unix.EACCES}
	why := ""
	switch {
	case ok:
	case u.Err == "no such socket":
		c.errno, why = unix.ENOENT, u.Err
	case u.Err != "":
		why = "not resolved: " + u.Err
	default:
		why = "refused (outside the sandbox)"
	}
	c.records = []observers.Record{sockRecord(pid, op, d, ok, why)}
	return c
}

// msghdrSize is sizeof(struct msghdr) on 64-bit Linux; msg_name is at 0
// and msg_namelen at 8.
const (
	msghdrSize  = 56
	mmsghdrSize = 64
	maxMmsg     = 1024 // UIO_MAXIOV: the kernel sends at most this many
)

func (s *loop) sendmsg(n notif) call {
	b, err := s.rd.read(int(n.Pid), n.Data.Args[1], msghdrSize)
	if err != nil || len(b) < msghdrSize {
		return s.unreadable(n, "sendmsg", err)
	}
	name, namelen := binary.NativeEndian.Uint64(b[0:]), uint64(binary.NativeEndian.Uint32(b[8:]))
	if name == 0 {
		return call{allow: true} // a connected socket: its destination was judged at connect
	}
	return s.dest(n, "sendmsg", name, namelen)
}

func (s *loop) sendmmsg(n notif) call {
	vlen := min(n.Data.Args[2], maxMmsg)
	if vlen == 0 {
		return call{allow: true}
	}
	b, err := s.rd.read(int(n.Pid), n.Data.Args[1], int(vlen)*mmsghdrSize)
	if err != nil || len(b) < int(vlen)*mmsghdrSize {
		return s.unreadable(n, "sendmmsg", err)
	}
	out := call{allow: true}
	seen := map[string]bool{}
	for i := 0; i < int(vlen); i++ {
		h := b[i*mmsghdrSize:]
		name, namelen := binary.NativeEndian.Uint64(h[0:]), uint64(binary.NativeEndian.Uint32(h[8:]))
		if name == 0 {
			continue
		}
		c := s.dest(n, "sendmmsg", name, namelen)
		for _, r := range c.records {
			if key := r.Summary; !seen[key] {
				seen[key] = true
				out.records = append(out.records, r)
			}
		}
		if !c.allow {
			out.allow, out.errno = false, c.errno // one denied destination denies the call
			if len(c.records) == 1 && c.records[0].Data[observers.KeyFamily] == "unreadable" {
				break // each read may take readTimeout: stop at the first that fails
			}
		}
	}
	return out
}

func (s *loop) unreadable(n notif, op string, err error) call {
	why := "message header unreadable"
	if err != nil {
		why += ": " + err.Error()
	}
	return call{errno: unix.ENETUNREACH, records: []observers.Record{sockRecord(int(n.Pid), op, destination{family: "unreadable"}, false, why)}}
}

// exec records an execve or execveat and lets it go on.
func (s *loop) exec(n notif) call {
	pid := int(n.Pid)
	pathAt, argvAt := n.Data.Args[0], n.Data.Args[1]
	data := map[string]string{observers.KeyOp: "exec", observers.KeyPid: strconv.Itoa(pid), observers.KeyVerdict: "allow"}
	if int(n.Data.Nr) == unix.SYS_EXECVEAT {
		pathAt, argvAt = n.Data.Args[1], n.Data.Args[2]
		data[observers.KeyDirfd] = strconv.Itoa(int(int32(n.Data.Args[0])))
	}
	path, cut, err := s.rd.readString(pid, pathAt, maxPath)
	if err != nil {
		data[observers.KeyError] = "path unreadable: " + err.Error()
	}
	argv, argvCut, err := s.rd.readArgv(pid, argvAt)
	if err != nil && data[observers.KeyError] == "" {
		data[observers.KeyError] = "arguments unreadable: " + err.Error()
	}
	if cut || argvCut {
		data[observers.KeyTruncated] = "true"
	}
	data[observers.KeyPath] = path
	if b, err := s.rd.bounded(func() ([]byte, error) {
		tgid, ppid, err := procIDs(pid)
		if err != nil {
			return nil, err
		}
		ids := []string{strconv.Itoa(tgid), strconv.Itoa(ppid)}
		for _, a := range ancestors(ppid) {
			ids = append(ids, strconv.Itoa(a))
		}
		return []byte(strings.Join(ids, " ")), nil
	}); err == nil {
		ids := strings.Fields(string(b))
		if ids[0] != data[observers.KeyPid] {
			data[observers.KeyTid], data[observers.KeyPid] = data[observers.KeyPid], ids[0]
		}
		data[observers.KeyPpid] = ids[1]
		if len(ids) > 2 {
			data[observers.KeyAncestors] = strings.Join(ids[2:], " ")
		}
	}
	if data[observers.KeyError] == "" && !cut && path != "" {
		dirfd := int64(unix.AT_FDCWD)
		if d, ok := data[observers.KeyDirfd]; ok {
			dirfd, _ = strconv.ParseInt(d, 10, 32)
		}
		if abs, err := absolute(pid, dirfd, path); err == nil {
			if b, err := s.rd.bounded(func() ([]byte, error) {
				found, err := execFound(pid, abs)
				return []byte(found), err
			}); err == nil {
				data[observers.KeyFound] = string(b)
			}
		}
	}
	if argv == nil {
		argv = []string{}
	}
	js, _ := json.Marshal(argv)
	data[observers.KeyArgv] = string(js)
	summary := fmt.Sprintf("pid %s exec %s %s", data[observers.KeyPid], strconv.Quote(path), js)
	switch data[observers.KeyFound] {
	case foundNo:
		summary += " (no such file: nothing runs)"
	case foundNotExec:
		summary += " (not an executable file: nothing runs)"
	}
	return call{allow: true, exec: true, records: []observers.Record{{Kind: observers.KindProcess, Summary: summary, Data: data}}}
}

// sockRecord describes one destination and its verdict.
func sockRecord(pid int, op string, d destination, allowed bool, why string) observers.Record {
	verdict := "allow"
	if !allowed {
		verdict = "deny"
	}
	data := map[string]string{observers.KeyOp: op, observers.KeyFamily: d.family, observers.KeyPid: strconv.Itoa(pid), observers.KeyVerdict: verdict}
	if d.host != "" {
		data[observers.KeyAddr] = d.host
	}
	if d.family == "inet" || d.family == "inet6" {
		data[observers.KeyPort] = strconv.Itoa(d.port)
	}
	summary := fmt.Sprintf("pid %d %s %s -> %s", pid, op, d, verdict)
	if !allowed && why == "" {
		summary += " (ENETUNREACH)"
	}
	if why != "" {
		data[observers.KeyWhy] = why
		summary += " (" + why + ")"
	}
	return observers.Record{Kind: observers.KindSocket, Summary: summary, Data: data}
}
