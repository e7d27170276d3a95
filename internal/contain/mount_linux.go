package contain

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The inner shim starts in new mount, UTS and IPC namespaces (see
// nsAttr) and lays the server's view of the filesystem out the way
// bubblewrap's --ro-bind / / plus a few writable binds does, but in place:
//
//   - every mount of the host is remounted read-only, so a server cannot
//     change a host file's mode, owner, times or extended attributes
//     (Landlock, which refuses writes, does not cover metadata);
//   - the sandbox's tmp directory is bound at /tmp and /var/tmp, so a
//     server with a hard-coded temp path writes into the sandbox, where
//     the files observer sees it, and nothing lands in the host's /tmp;
//   - /dev/shm is a small private tmpfs;
//   - with mountLayout.PTY, /dev/pts is a new devpts instance of the
//     namespace's own (newinstance, ptmxmode=0666) and /dev/ptmx its
//     ptmx, so a server can open a pseudo-terminal (forkpty, node-pty)
//     and reaches no terminal of the host's;
//   - /proc is a new proc for the server's own pid namespace: no other
//     process's environ or cmdline is there to read;
//   - the credential stores of the harness user's home, and as root the
//     host's root-only secrets, are hidden (see homeStores, hideAll);
//   - the sandbox itself, and what the server needs from under the host's
//     temp directories (its program, the harness binary the shim and
//     the sm-* links without a helper run, its path arguments, declared
//     unix sockets), stay at their
//     paths: each is bound onto a mount point made for it under the
//     sandbox's tmp (the sandbox writable, the others read-only).
//
// All of it happens before the server exists; the mounts are the
// namespace's, so the shim's proxy threads see them too, which does not
// matter to them (they dial TCP, or a unix socket the harness declared).

// shmSize bounds the private /dev/shm.
const shmSize = "size=64m,mode=1777"

// mountLayout is what setupMounts needs to know.
type mountLayout struct {
	Top     string   // the sandbox top, writable at its own path
	Tmp     string   // the sandbox's tmp, bound at /tmp and /var/tmp; "" keeps the host's (read-only)
	Visible []string // host paths to keep visible, read-only, at their own paths
	Hide    []string // credential stores to hide (hideAll)
	PTY     bool     // a private devpts at /dev/pts (privatePTY)
}

// setupMounts lays the namespace out (see above). It must run in a new
// mount namespace, as root of its user namespace.
func setupMounts(l mountLayout) error {
	// The working directory (the sandbox root) was entered through the
	// host's mounts; it is entered again through the new ones at the end.
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("mount --make-rslave /: %w", err)
	}
	type keep struct {
		path     string
		fd       int
		dir      bool
		writable bool
	}
	var keeps []keep
	defer func() {
		for _, k := range keeps {
			unix.Close(k.fd)
		}
	}()
	add := func(p string, writable bool) error {
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err != nil {
			if !writable && errors.Is(err, unix.ENOENT) {
				return nil // nothing to keep
			}
			return fmt.Errorf("stat %s: %w", p, err)
		}
		fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("open %s: %w", p, err)
		}
		keeps = append(keeps, keep{p, fd, st.Mode&unix.S_IFMT == unix.S_IFDIR, writable})
		return nil
	}
	if err := add(l.Top, true); err != nil {
		return err
	}
	for _, p := range l.Visible {
		if l.Tmp != "" && underAny(p, hostTmps) && !within(p, l.Top) {
			if err := add(p, false); err != nil {
				return err
			}
		}
	}
	var tmps []string
	tmpFD := -1
	if l.Tmp != "" {
		fd, err := unix.Open(l.Tmp, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("open %s: %w", l.Tmp, err)
		}
		defer unix.Close(fd)
		tmpFD = fd
		for _, t := range hostTmps {
			if fi, err := os.Lstat(t); err == nil && fi.IsDir() {
				tmps = append(tmps, t)
			}
		}
	}
	// A kept tree may hold the sandbox (or another kept path): bind the
	// outer one first, so the inner bind lands on top of it.
	slices.SortFunc(keeps, func(a, b keep) int { return strings.Compare(a.path, b.path) })
	// Mount points for what is kept beneath a private temp directory: the
	// same relative path under the sandbox's tmp.
	for _, k := range keeps {
		if err := mountPoint(l.Tmp, tmps, k.path, k.dir); err != nil {
			return err
		}
	}
	writable := map[string]bool{"/proc": true}
	for _, t := range tmps {
		if err := bind("/proc/self/fd/"+strconv.Itoa(tmpFD), t); err != nil {
			return err
		}
		writable[t] = true
	}
	for _, k := range keeps {
		if err := bind("/proc/self/fd/"+strconv.Itoa(k.fd), k.path); err != nil {
			return err
		}
		if k.writable {
			writable[k.path] = true
		}
	}
	if err := hideAll(l.Hide); err != nil {
		return err
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, shmSize); err != nil {
			return fmt.Errorf("mount tmpfs on /dev/shm: %w", err)
		}
		writable["/dev/shm"] = true
	}
	if l.PTY {
		if err := privatePTY(); err != nil {
			return err
		}
		writable["/dev/pts"], writable["/dev/ptmx"] = true, true
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount proc on /proc: %w", err)
	}
	if err := readOnlyExcept(writable); err != nil {
		return err
	}
	if err := os.Chdir(cwd); err != nil {
		return fmt.Errorf("working directory %s: %w", cwd, err)
	}
	return nil
}

// MountPoints makes, beneath tmp (the sandbox's tmp directory), the mount
// points a contained server's namespace binds paths onto: each path in
// paths that lies beneath the host's /tmp or /var/tmp gets one at the
// same relative path (an empty file for a file, a directory otherwise).
// The shim makes those it needs itself; a harness calls this first for
// the ones every start needs (the sandbox top, the harness binary's
// ProgramTree) so they exist before its files observer's first snapshot
// and are not reported as the server's doing.
func MountPoints(tmp string, paths ...string) error {
	if tmp == "" {
		return nil
	}
	var tmps []string
	for _, t := range hostTmps {
		if fi, err := os.Lstat(t); err == nil && fi.IsDir() {
			tmps = append(tmps, t)
		}
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		dir := err != nil || fi.IsDir()
		if err := mountPoint(tmp, tmps, p, dir); err != nil {
			return err
		}
	}
	return nil
}

// mountPoint makes the mount point for p beneath tmp, when p is beneath
// one of tmps: a directory, or an empty file for a file.
func mountPoint(tmp string, tmps []string, p string, dir bool) error {
	for _, t := range tmps {
		rel, ok := relUnder(p, t)
		if !ok {
			continue
		}
		mp := filepath.Join(tmp, rel)
		if dir {
			if err := os.MkdirAll(mp, 0o700); err != nil {
				return fmt.Errorf("mount point %s: %w", mp, err)
			}
		} else if err := mkFile(mp); err != nil {
			return err
		}
	}
	return nil
}

// readOnlyExcept remounts every mount of the namespace read-only, keeping
// the flags a less privileged namespace may not clear, except the mount
// points in writable and what is beneath /proc.
func readOnlyExcept(writable map[string]bool) error {
	mps, err := mountPoints()
	if err != nil {
		return err
	}
	for _, mp := range mps {
		if writable[mp] || mp == "/proc" || strings.HasPrefix(mp, "/proc/") {
			continue
		}
		if err := remountReadOnly(mp); err != nil && mp == "/" {
			return fmt.Errorf("remounting / read-only: %w", err)
		}
	}
	return nil
}

// remountReadOnly makes the mount at mp read-only, keeping the flags a
// less privileged namespace may not clear. A mount point that cannot be
// reached (beneath a later mount, or gone) is left alone: nil.
func remountReadOnly(mp string) error {
	var sfs unix.Statfs_t
	if err := unix.Statfs(mp, &sfs); err != nil {
		return nil
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY)
	for st, ms := range map[int64]uintptr{unix.ST_NOSUID: unix.MS_NOSUID, unix.ST_NODEV: unix.MS_NODEV,
		unix.ST_NOEXEC: unix.MS_NOEXEC, unix.ST_NOATIME: unix.MS_NOATIME, unix.ST_NODIRATIME: unix.MS_NODIRATIME,
		unix.ST_RELATIME: unix.MS_RELATIME} {
		if sfs.Flags&st != 0 {
			flags |= ms
		}
	}
	return unix.Mount("", mp, "", flags, "")
}

// mountPoints lists the namespace's mount points from /proc/self/mountinfo,
// parents before children.
func mountPoints() ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 {
			out = append(out, unescapeMount(fields[4]))
		}
	}
	return out, sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func bind(src, dst string) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s on %s: %w", src, dst, err)
	}
	return nil
}

func mkFile(p string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("mount point %s: %w", p, err)
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDONLY, 0o600)
	if err != nil {
		return fmt.Errorf("mount point %s: %w", p, err)
	}
	return f.Close()
}

// ptsOptions are the private devpts instance's: ptys of its own, a ptmx
// anyone in the namespace may open, and no gid= (the tty group need not
// be mapped in the user namespace).
const ptsOptions = "newinstance,ptmxmode=0666,mode=0620"

// privatePTY mounts a new devpts instance on /dev/pts and binds its ptmx
// on /dev/ptmx. It must run in a new mount namespace.
func privatePTY() error {
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, ptsOptions); err != nil {
		return fmt.Errorf("mount devpts on /dev/pts: %w", err)
	}
	if err := bind("/dev/pts/ptmx", "/dev/ptmx"); err != nil {
		return err
	}
	return nil
}

// tryPTY lays the private devpts out (in the probe child's mount
// namespace) and opens a pseudo-terminal pair through it, as forkpty does.
func tryPTY() error {
	if err := privatePTY(); err != nil {
		return err
	}
	master, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open /dev/ptmx: %w", err)
	}
	defer unix.Close(master)
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		return fmt.Errorf("unlockpt: %w", err)
	}
	n, err := unix.IoctlGetInt(master, unix.TIOCGPTN)
	if err != nil {
		return fmt.Errorf("ptsname: %w", err)
	}
	slave, err := unix.Open("/dev/pts/"+strconv.Itoa(n), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open /dev/pts/%d: %w", n, err)
	}
	return unix.Close(slave)
}
