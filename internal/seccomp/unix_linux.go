package seccomp

import (
	"errors"
	"fmt"
	"path"
	"strconv"

	"golang.org/x/sys/unix"
)

// maxUnixDepth bounds the walk from a socket up to its process's root.
const maxUnixDepth = 256

// maxLinkHops is how many links a lookup follows (the kernel's own limit).
const maxLinkHops = 40

// fileID returns the inode path names on the harness's side.
func fileID(path string) (FileID, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return FileID{}, err
	}
	return FileID{Dev: st.Dev, Ino: st.Ino}, nil
}

// resolveUnix finds the socket a pathname connect of pid would reach:
// path (absolute, or relative to pid's working directory) looked up under
// pid's own root (/proc/<pid>/root, which crosses into its mount
// namespace), following symbolic links there as the kernel would, then
// the inode of every directory above it up to that root.
func resolveUnix(pid int, path string) *UnixSocket {
	u := &UnixSocket{Path: path}
	if abs, err := absolute(pid, unix.AT_FDCWD, path); err == nil {
		u.Path = abs
	}
	if err := u.resolve(pid); err != nil {
		u.Err = err.Error()
		u.id, u.chain = FileID{}, nil
	}
	return u
}

func (u *UnixSocket) resolve(pid int) error {
	root, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/root", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("the caller's root: %w", err)
	}
	defer unix.Close(root)
	var rst unix.Stat_t
	if err := unix.Fstat(root, &rst); err != nil {
		return err
	}
	rootID := FileID{Dev: rst.Dev, Ino: rst.Ino}
	p := path.Clean(u.Path)
	if !path.IsAbs(p) {
		return errors.New("no absolute path")
	}
	// Follow the last element while it is a link (the directories above
	// it are followed by the lookup itself), so the chain below is the
	// socket's own directories, not a link's.
	var dir int
	var name string
	for hops := 0; ; hops++ {
		if hops > maxLinkHops {
			return unix.ELOOP
		}
		if dir, err = parentOf(root, p); err != nil {
			if errors.Is(err, unix.ENOENT) {
				return errors.New("no such socket")
			}
			return err
		}
		name = path.Base(p)
		buf := make([]byte, 4096)
		n, err := unix.Readlinkat(dir, name, buf)
		if err != nil {
			break // not a link (or gone: the stat below says)
		}
		unix.Close(dir)
		if t := string(buf[:n]); path.IsAbs(t) {
			p = path.Clean(t)
		} else {
			p = path.Join(path.Dir(p), t)
		}
	}
	defer func() { unix.Close(dir) }()
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return errors.New("no such socket")
		}
		return err
	}
	u.id = FileID{Dev: st.Dev, Ino: st.Ino}
	// A socket that is a mount of its own, or a directory that is, was
	// bound there from elsewhere (the harness keeps a server's host paths
	// visible that way): the directories above it say nothing of where it
	// is, so the chain stops at such a mount's root.
	mnt, err := mountID(dir, name)
	if err != nil {
		return err
	}
	dirMnt, err := mountID(dir, "")
	if err != nil {
		return err
	}
	if mnt != dirMnt {
		return nil
	}
	for range maxUnixDepth {
		if err := unix.Fstat(dir, &st); err != nil {
			return err
		}
		id := FileID{Dev: st.Dev, Ino: st.Ino}
		u.chain = append(u.chain, id)
		if id == rootID {
			return nil
		}
		up, err := unix.Openat(dir, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		upMnt, err := mountID(up, "")
		unix.Close(dir)
		dir = up
		if err != nil {
			return err
		}
		if upMnt != dirMnt {
			return nil // dir was the root of its mount
		}
	}
	return nil
}

// mountID is the id of the mount name (or, with "", dirfd itself) is on.
func mountID(dirfd int, name string) (uint64, error) {
	var stx unix.Statx_t
	flags := unix.AT_SYMLINK_NOFOLLOW
	if name == "" {
		flags |= unix.AT_EMPTY_PATH
	}
	if err := unix.Statx(dirfd, name, flags, unix.STATX_MNT_ID, &stx); err != nil {
		return 0, err
	}
	return stx.Mnt_id, nil
}

// parentOf opens the directory that holds the last element of path, as
// seen from root, following links in the directories above it.
func parentOf(root int, p string) (int, error) {
	dir := path.Dir(p)
	if dir == "/" {
		return unix.Openat(root, ".", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	return unix.Openat2(root, dir[1:], &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS})
}
