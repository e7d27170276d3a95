package seccomp

import (
	"bytes"
	"errors"
	"path"
	"strconv"

	"golang.org/x/sys/unix"
)

// The values of an exec record's "found": whether the program it names
// is there to run, in the caller's own view of the filesystem, when the
// exec is asked for. The notification comes before the kernel runs the
// exec and CONTINUE never tells how it ended, so this is what says that
// an exec of a program that does not exist (one try of a PATH search)
// ran nothing: the kernel answers it ENOENT or ENOTDIR.
const (
	foundYes     = "true"           // a file with an execute bit: the kernel runs it
	foundNo      = "false"          // no such file: nothing runs (ENOENT, ENOTDIR)
	foundNotExec = "not-executable" // there, but no file to execute (EACCES): nothing runs
)

// execFound looks up abs (an absolute path) under pid's own root
// (/proc/PID/root, which crosses into its mount namespace), following
// links there as the kernel would, and says which of foundYes, foundNo
// and foundNotExec it is; an error when that cannot be told (a magic link
// such as /proc/self/exe, a loop, a lookup that failed otherwise). The
// file can change between this look and the kernel's own: a server that
// races it can make an exec look missing that then runs.
func execFound(pid int, abs string) (string, error) {
	p := path.Clean(abs)
	if !path.IsAbs(p) {
		return "", errors.New("no absolute path")
	}
	root, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/root", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(root)
	rel := p[1:]
	if rel == "" {
		rel = "."
	}
	fd, err := unix.Openat2(root, rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS})
	switch {
	case errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR):
		return foundNo, nil
	case err != nil:
		return "", err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return "", err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o111 == 0 {
		return foundNotExec, nil
	}
	return foundYes, nil
}

// procIDs reads, from /proc/TID/status, the process a thread belongs to
// (its thread group, whose pid the process has) and that process's
// parent. A notification names the calling thread; an exec from any
// thread but the first of a multi-threaded program (a Go program's
// syscall.Exec) leaves the process with its own pid, not the thread's.
func procIDs(tid int) (tgid, ppid int, err error) {
	b, err := readProcFile("/proc/"+strconv.Itoa(tid)+"/status", 4096)
	if err != nil {
		return 0, 0, err
	}
	tgid, ppid = -1, -1
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		switch string(k) {
		case "Tgid":
			tgid, err = strconv.Atoi(string(bytes.TrimSpace(v)))
		case "PPid":
			ppid, err = strconv.Atoi(string(bytes.TrimSpace(v)))
		}
		if err != nil {
			return 0, 0, err
		}
	}
	if tgid < 0 || ppid < 0 {
		return 0, 0, errors.New("no Tgid or PPid in status")
	}
	return tgid, ppid, nil
}

// maxAncestors bounds how far up an exec record names its ancestors.
const maxAncestors = 8

// ancestors lists the parents above pid, nearest first, up to
// maxAncestors, stopping at pid 1 or a process already gone. A forked
// shell that runs programs without an exec of its own (a subshell of a
// script) has no exec record: its parent is known only from here, read
// while the exec waits on its notification.
func ancestors(pid int) []int {
	var out []int
	for range maxAncestors {
		if pid <= 1 {
			break
		}
		_, ppid, err := procIDs(pid)
		if err != nil || ppid <= 0 {
			break
		}
		out = append(out, ppid)
		pid = ppid
	}
	return out
}

// readProcFile reads at most n bytes of a /proc file.
func readProcFile(name string, n int) ([]byte, error) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	b := make([]byte, n)
	m, err := unix.Read(fd, b)
	if err != nil {
		return nil, err
	}
	return b[:m], nil
}
