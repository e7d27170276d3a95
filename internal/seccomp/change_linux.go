package seccomp

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/observers"
)

// A change is a call that changes a directory's entries without opening a
// file: a delete, a rename, a link, a new directory or node, a truncate.
// Each is recorded, wherever it points, and goes on (CONTINUE): Landlock
// and the read-only host refuse the ones outside the sandbox, the record
// says they were tried.

// changeCall is how one call's arguments are read: its op, which
// argument holds the path it changes and which the directory descriptor
// that path is relative to, and, where the call has them, a second path
// (a rename's destination, a hard link's existing file) with its
// descriptor, a symbolic link's contents, flags, a mode and a length.
// An index of -1 is an argument the call does not have (a descriptor of
// -1: AT_FDCWD).
type changeCall struct {
	name, op            string
	path, dirfd         int
	second, secondDir   int
	link                int
	flags, mode, length int
}

// at is a call that changes the path in argument path, relative to the
// descriptor in argument dirfd (-1: none), and has nothing else.
func at(name, op string, dirfd, path int) changeCall {
	return changeCall{name: name, op: op, path: path, dirfd: dirfd, second: -1, secondDir: -1, link: -1, flags: -1, mode: -1, length: -1}
}

func (c changeCall) and(dirfd, path int) changeCall { c.secondDir, c.second = dirfd, path; return c }
func (c changeCall) contents(i int) changeCall      { c.link = i; return c }
func (c changeCall) flagsAt(i int) changeCall       { c.flags = i; return c }
func (c changeCall) modeAt(i int) changeCall        { c.mode = i; return c }
func (c changeCall) lengthAt(i int) changeCall      { c.length = i; return c }

// changeCalls are the calls change records, by number. The legacy ones
// (unlink, rename, mkdir, ...) are amd64's only: elsewhere their numbers
// are negative and no call has them.
var changeCalls = map[int]changeCall{
	sysUnlink:          at("unlink", "remove", -1, 0),
	sysRmdir:           at("rmdir", "remove", -1, 0),
	unix.SYS_UNLINKAT:  at("unlinkat", "remove", 0, 1).flagsAt(2),
	sysRename:          at("rename", "rename", -1, 0).and(-1, 1),
	unix.SYS_RENAMEAT:  at("renameat", "rename", 0, 1).and(2, 3),
	unix.SYS_RENAMEAT2: at("renameat2", "rename", 0, 1).and(2, 3).flagsAt(4),
	sysLink:            at("link", "link", -1, 1).and(-1, 0),
	unix.SYS_LINKAT:    at("linkat", "link", 2, 3).and(0, 1).flagsAt(4),
	sysSymlink:         at("symlink", "link", -1, 1).contents(0),
	unix.SYS_SYMLINKAT: at("symlinkat", "link", 1, 2).contents(0),
	sysMkdir:           at("mkdir", "mkdir", -1, 0).modeAt(1),
	unix.SYS_MKDIRAT:   at("mkdirat", "mkdir", 0, 1).modeAt(2),
	sysMknod:           at("mknod", "mknod", -1, 0).modeAt(1),
	unix.SYS_MKNODAT:   at("mknodat", "mknod", 0, 1).modeAt(2),
	unix.SYS_TRUNCATE:  at("truncate", "truncate", -1, 0).lengthAt(1),
}

// change records a call that changes a directory's entries (see
// changeCalls) and lets it go on. Data: op ("remove", "rename", "link",
// "mkdir", "mknod", "truncate"), syscall, path (absolute, resolved as an
// open's is: what is removed, renamed, created or truncated), for a
// rename "to" (its destination, absolute), for a hard link "target" (the
// existing file, absolute) and for a symbolic link "target" (its contents
// as given, which the kernel reads relative to the link's directory),
// given/to_given/target_given and dirfd/to_dirfd/target_dirfd when a path
// was relative, flags (unlinkat's AT_REMOVEDIR, renameat2's and linkat's
// as they apply), mode (mkdir, mknod: octal, with the node's type),
// length (truncate), pid, verdict="continue", and error when a path could
// not be read or resolved.
func (s *loop) change(n notif) call {
	cc, ok := changeCalls[int(n.Data.Nr)]
	if !ok {
		return call{allow: true}
	}
	pid := int(n.Pid)
	a := n.Data.Args
	data := map[string]string{observers.KeyOp: cc.op, observers.KeySyscall: cc.name, observers.KeyPid: strconv.Itoa(pid), observers.KeyVerdict: "continue"}
	dirOf := func(i int) int64 {
		if i < 0 {
			return unix.AT_FDCWD
		}
		return int64(int32(a[i]))
	}
	var flags uint64
	if cc.flags >= 0 {
		flags = a[cc.flags] & 0xffffffff
	}
	empty := cc.name == "linkat" && flags&unix.AT_EMPTY_PATH != 0
	abs := s.changePath(pid, dirOf(cc.dirfd), a[cc.path], "", data, false)
	summary := fmt.Sprintf("pid %d %s %s", pid, cc.name, strconv.Quote(abs))
	switch {
	case cc.second >= 0 && cc.op == "rename":
		to := s.changePath(pid, dirOf(cc.secondDir), a[cc.second], "to_", data, false)
		summary += " to " + strconv.Quote(to)
	case cc.second >= 0:
		target := s.changePath(pid, dirOf(cc.secondDir), a[cc.second], "target_", data, empty)
		summary += " to " + strconv.Quote(target)
	case cc.link >= 0:
		target, cut, err := s.rd.readString(pid, a[cc.link], maxPath)
		if err != nil && data[observers.KeyError] == "" {
			data[observers.KeyError] = "link contents unreadable: " + err.Error()
		}
		if cut {
			data[observers.KeyTruncated] = "true"
		}
		data[observers.KeyTarget] = target
		summary += " -> " + strconv.Quote(target)
	}
	if cc.flags >= 0 {
		if f := changeFlags(cc.name, flags); f != "" {
			data[observers.KeyFlags] = f
			summary += " (" + f + ")"
		}
	}
	if cc.mode >= 0 {
		data[observers.KeyMode] = fileMode(cc.op, uint32(a[cc.mode]))
		summary += " (" + data[observers.KeyMode] + ")"
	}
	if cc.length >= 0 {
		data[observers.KeyLength] = strconv.FormatInt(int64(a[cc.length]), 10)
		summary += " (length " + data[observers.KeyLength] + ")"
	}
	summary += " -> continue"
	if data[observers.KeyError] != "" {
		summary += " (" + data[observers.KeyError] + ")"
	}
	return call{allow: true, records: []observers.Record{{Kind: observers.KindProcess, Summary: summary, Data: data}}}
}

// changePath reads the path at addr and makes it absolute against dirfd,
// as openWrite does; it sets data[prefix+"path"] (data["path"] for the
// first, data["to"] or data["target"] for the second), prefix+"given" and
// prefix+"dirfd" when the path was relative, and data["error"] for the
// first failure. With empty (linkat's AT_EMPTY_PATH) an empty path is the
// file dirfd names.
func (s *loop) changePath(pid int, dirfd int64, addr uint64, prefix string, data map[string]string, empty bool) string {
	key := strings.TrimSuffix(prefix, "_")
	if key == "" {
		key = "path"
	}
	path, cut, err := s.rd.readString(pid, addr, maxPath)
	if err != nil && data[observers.KeyError] == "" {
		data[observers.KeyError] = key + " unreadable: " + err.Error()
	}
	if cut {
		data[observers.KeyTruncated] = "true"
	}
	if dirfd != unix.AT_FDCWD {
		data[prefix+"dirfd"] = strconv.FormatInt(dirfd, 10)
	}
	var abs string
	if empty && path == "" && err == nil {
		abs, err = fdPath(pid, dirfd)
	} else {
		abs, err = absolute(pid, dirfd, path)
	}
	if err != nil && data[observers.KeyError] == "" {
		data[observers.KeyError] = "relative " + key + " not resolved: " + err.Error()
	}
	if abs != path {
		data[prefix+"given"] = path
	}
	data[key] = abs
	return abs
}

// fdPath is what the caller's descriptor fd names, from /proc/PID/fd/N.
func fdPath(pid int, fd int64) (string, error) {
	if fd < 0 {
		return "", fmt.Errorf("bad descriptor %d", fd)
	}
	return os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.FormatInt(fd, 10))
}

// changeFlags names the flags of unlinkat, renameat2 and linkat that say
// what the call does: "AT_REMOVEDIR", "RENAME_EXCHANGE", ...; unknown
// bits as a hexadecimal rest.
func changeFlags(name string, f uint64) string {
	type bit struct {
		bit  uint64
		name string
	}
	var known []bit
	switch name {
	case "unlinkat":
		known = []bit{{unix.AT_REMOVEDIR, "AT_REMOVEDIR"}}
	case "renameat2":
		known = []bit{{unix.RENAME_NOREPLACE, "RENAME_NOREPLACE"}, {unix.RENAME_EXCHANGE, "RENAME_EXCHANGE"}, {unix.RENAME_WHITEOUT, "RENAME_WHITEOUT"}}
	case "linkat":
		known = []bit{{unix.AT_SYMLINK_FOLLOW, "AT_SYMLINK_FOLLOW"}, {unix.AT_EMPTY_PATH, "AT_EMPTY_PATH"}}
	}
	var parts []string
	for _, k := range known {
		if f&k.bit != 0 {
			parts = append(parts, k.name)
			f &^= k.bit
		}
	}
	if f != 0 {
		parts = append(parts, "0x"+strconv.FormatUint(f, 16))
	}
	return strings.Join(parts, "|")
}

// fileMode words a mkdir's or mknod's mode: "0755", and for a node its
// type first: "S_IFIFO|0644". A mknod without a type makes a regular file.
func fileMode(op string, m uint32) string {
	perm := fmt.Sprintf("%04o", m&0o7777)
	if op != "mknod" {
		return perm
	}
	switch m & unix.S_IFMT {
	case unix.S_IFCHR:
		return "S_IFCHR|" + perm
	case unix.S_IFBLK:
		return "S_IFBLK|" + perm
	case unix.S_IFIFO:
		return "S_IFIFO|" + perm
	case unix.S_IFSOCK:
		return "S_IFSOCK|" + perm
	default:
		return "S_IFREG|" + perm
	}
}
