package seccomp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/observers"
)

// The calls below are notified only to be recorded: every one is answered
// with CONTINUE, and Landlock, the namespaces and the kernel decide what
// happens to it. The record says what was tried, not how it ended.

// openWrite records an open that asks to write: open or openat (the filter
// sends only those whose flags ask to write, and they are recorded as
// they are), creat, or openat2 (sent always; a read-only one goes on
// unrecorded). An open of /dev/null is not recorded: every spawned
// program's standard streams make one, and it writes nothing anywhere.
func (s *loop) openWrite(n notif) call {
	pid := int(n.Pid)
	a := n.Data.Args
	dirfd := int64(unix.AT_FDCWD)
	var name string
	var pathAt, flags uint64
	data := map[string]string{observers.KeyOp: "open-write", observers.KeyPid: strconv.Itoa(pid), observers.KeyVerdict: "continue"}
	switch int(n.Data.Nr) {
	case sysOpen:
		name, pathAt, flags = "open", a[0], a[1]&0xffffffff
	case sysCreat:
		name, pathAt, flags = "creat", a[0], unix.O_CREAT|unix.O_WRONLY|unix.O_TRUNC
	case unix.SYS_OPENAT:
		name, dirfd, pathAt, flags = "openat", int64(int32(a[0])), a[1], a[2]&0xffffffff
	case unix.SYS_OPENAT2:
		name, dirfd, pathAt = "openat2", int64(int32(a[0])), a[1]
		if a[3] < 8 {
			return call{allow: true} // no flags at all: the kernel refuses it (EINVAL)
		}
		b, err := s.rd.read(pid, a[2], 8) // struct open_how starts with its u64 flags
		if err != nil || len(b) < 8 {
			data[observers.KeyError] = "open_how unreadable"
			if err != nil {
				data[observers.KeyError] += ": " + err.Error()
			}
			break
		}
		if flags = binary.NativeEndian.Uint64(b); flags&WriteIntent == 0 {
			return call{allow: true}
		}
	}
	data[observers.KeySyscall] = name
	if data[observers.KeyError] == "" {
		data[observers.KeyFlags] = openFlags(flags)
	}
	if dirfd != unix.AT_FDCWD {
		data[observers.KeyDirfd] = strconv.FormatInt(dirfd, 10)
	}
	path, cut, err := s.rd.readString(pid, pathAt, maxPath)
	if err != nil && data[observers.KeyError] == "" {
		data[observers.KeyError] = "path unreadable: " + err.Error()
	}
	if cut {
		data[observers.KeyTruncated] = "true"
	}
	abs, err := absolute(pid, dirfd, path)
	if err != nil && data[observers.KeyError] == "" {
		data[observers.KeyError] = "relative path not resolved: " + err.Error()
	}
	if abs == os.DevNull && data[observers.KeyError] == "" {
		return call{allow: true} // every spawn's stdin and stdout: writing there changes nothing
	}
	if abs != path {
		data[observers.KeyGiven] = path
	}
	data[observers.KeyPath] = abs
	summary := fmt.Sprintf("pid %d %s %s (%s) -> continue", pid, name, strconv.Quote(abs), data[observers.KeyFlags])
	if data[observers.KeyError] != "" {
		summary += " (" + data[observers.KeyError] + ")"
	}
	return call{allow: true, records: []observers.Record{{Kind: observers.KindProcess, Summary: summary, Data: data}}}
}

// absolute makes path absolute, as the caller (pid) would resolve it: a
// relative path against its working directory (dirfd AT_FDCWD) or against
// the directory its descriptor dirfd names. The result is cleaned
// lexically ("a/../b" is "b"), which a symbolic link along the way can
// make differ from what the kernel opens. On error path comes back as is.
func absolute(pid int, dirfd int64, path string) (string, error) {
	if path == "" || strings.HasPrefix(path, "/") {
		return path, nil
	}
	link := "/proc/" + strconv.Itoa(pid) + "/cwd"
	if dirfd != unix.AT_FDCWD {
		if dirfd < 0 {
			return path, fmt.Errorf("bad descriptor %d", dirfd)
		}
		link = "/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.FormatInt(dirfd, 10)
	}
	base, err := os.Readlink(link)
	if err != nil {
		return path, err
	}
	if !strings.HasPrefix(base, "/") {
		return path, fmt.Errorf("descriptor %d is %s, not a directory", dirfd, base)
	}
	return filepath.Join(base, path), nil
}

// openFlags names the access mode and the flags that say what an open may
// change: "O_WRONLY|O_CREAT|O_TRUNC". Others (O_CLOEXEC, O_NONBLOCK, ...)
// are left out.
func openFlags(f uint64) string {
	var parts []string
	switch f & unix.O_ACCMODE {
	case unix.O_RDONLY:
		parts = append(parts, "O_RDONLY")
	case unix.O_WRONLY:
		parts = append(parts, "O_WRONLY")
	case unix.O_RDWR:
		parts = append(parts, "O_RDWR")
	default:
		parts = append(parts, "O_ACCMODE")
	}
	for _, b := range []struct {
		bit  uint64
		name string
	}{
		{unix.O_CREAT, "O_CREAT"}, {unix.O_EXCL, "O_EXCL"}, {unix.O_TRUNC, "O_TRUNC"}, {unix.O_APPEND, "O_APPEND"},
		{unix.O_TMPFILE, "O_TMPFILE"}, {unix.O_DIRECTORY, "O_DIRECTORY"}, {unix.O_NOFOLLOW, "O_NOFOLLOW"}, {unix.O_PATH, "O_PATH"},
	} {
		if f&b.bit == b.bit {
			parts = append(parts, b.name)
			f &^= b.bit // O_TMPFILE holds O_DIRECTORY's bit
		}
	}
	return strings.Join(parts, "|")
}

// signal records a signal sent to another process (or process group) than
// the caller's own: kill, tkill, tgkill, rt_sigqueueinfo,
// rt_tgsigqueueinfo or pidfd_send_signal. A process signalling itself (a
// runtime preempting its threads, raise, abort) goes on unrecorded.
func (s *loop) signal(n notif) call {
	pid := int(n.Pid)
	a := n.Data.Args
	data := map[string]string{observers.KeyOp: "signal", observers.KeyPid: strconv.Itoa(pid), observers.KeyVerdict: "continue"}
	var name, target string
	var sig int32
	self := false
	switch int(n.Data.Nr) {
	case unix.SYS_KILL, unix.SYS_RT_SIGQUEUEINFO:
		name = "kill"
		if int(n.Data.Nr) == unix.SYS_RT_SIGQUEUEINFO {
			name = "rt_sigqueueinfo"
		}
		t := int32(a[0])
		target, sig = strconv.Itoa(int(t)), int32(a[1])
		if t > 0 {
			id, err := callerIDs(pid)
			self = err == nil && t == id.nsTgid
		}
	case unix.SYS_TKILL:
		t := int32(a[0])
		name, target, sig = "tkill", strconv.Itoa(int(t)), int32(a[1])
		id, err := callerIDs(pid)
		self = err == nil && t == id.nsTid
	case unix.SYS_TGKILL, unix.SYS_RT_TGSIGQUEUEINFO:
		name = "tgkill"
		if int(n.Data.Nr) == unix.SYS_RT_TGSIGQUEUEINFO {
			name = "rt_tgsigqueueinfo"
		}
		t := int32(a[0])
		target, sig = strconv.Itoa(int(t)), int32(a[2])
		data[observers.KeyTid] = strconv.Itoa(int(int32(a[1])))
		id, err := callerIDs(pid)
		self = err == nil && t == id.nsTgid
	case unix.SYS_PIDFD_SEND_SIGNAL:
		fd := int32(a[0])
		name, target, sig = "pidfd_send_signal", "pidfd:"+strconv.Itoa(int(fd)), int32(a[1])
		if tp, err := pidfdTarget(pid, int(fd)); err == nil {
			data[observers.KeyTargetPid] = strconv.Itoa(int(tp))
			id, err := callerIDs(pid)
			self = err == nil && tp == id.tgid
		}
	}
	if self {
		return call{allow: true}
	}
	data[observers.KeySyscall], data[observers.KeyTarget], data[observers.KeySignal] = name, target, signalName(sig)
	summary := fmt.Sprintf("pid %d %s %s to %s -> continue", pid, name, data[observers.KeySignal], target)
	return call{allow: true, records: []observers.Record{{Kind: observers.KindProcess, Summary: summary, Data: data}}}
}

// signalName is "SIGWINCH", "0" for signal 0 (a check that the target
// exists), or the number when it has no name (a real-time signal).
func signalName(sig int32) string {
	if sig != 0 {
		if name := unix.SignalName(syscall.Signal(sig)); name != "" {
			return name
		}
	}
	return strconv.Itoa(int(sig))
}

// ids are a thread's ids: its thread group as the harness sees it, and
// its thread group and own id in its innermost pid namespace, as it sees
// them.
type ids struct {
	tgid, nsTgid, nsTid int32
}

var errNoIDs = errors.New("no ids in /proc/PID/status")

// callerIDs reads the ids of thread pid (as the harness sees it) from
// /proc/pid/status.
func callerIDs(pid int) (ids, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return ids{}, err
	}
	var id ids
	var found int
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		key, val, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			continue
		}
		f := strings.Fields(string(val))
		if len(f) == 0 {
			continue
		}
		last, err := strconv.ParseInt(f[len(f)-1], 10, 32)
		if err != nil {
			continue
		}
		switch string(key) {
		case "Tgid":
			id.tgid, found = int32(last), found|1
		case "NStgid":
			id.nsTgid, found = int32(last), found|2
		case "NSpid":
			id.nsTid, found = int32(last), found|4
		}
	}
	if found != 7 {
		return ids{}, errNoIDs
	}
	return id, nil
}

// pidfdTarget reads which process the caller's pidfd fd refers to, as the
// harness sees it, from /proc/pid/fdinfo/fd.
func pidfdTarget(pid, fd int) (int32, error) {
	if fd < 0 {
		return 0, unix.EBADF
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0, err
	}
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		if v, ok := bytes.CutPrefix(line, []byte("Pid:")); ok {
			p, err := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 32)
			if err != nil || p <= 0 {
				return 0, errors.New("not a live process")
			}
			return int32(p), nil
		}
	}
	return 0, errors.New("not a pidfd")
}
