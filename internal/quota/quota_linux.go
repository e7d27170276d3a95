package quota

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// Mount mounts a tmpfs of bytes (rounded up to whole pages by the kernel)
// on dir, an existing empty directory, with dir's permissions, without
// set-uid programs or device files.
func Mount(dir string, bytes int64) error {
	if bytes <= 0 {
		return fmt.Errorf("quota: %d bytes is no limit", bytes)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("quota: %w", err)
	}
	opts := "size=" + strconv.FormatInt(bytes, 10) + ",mode=" + strconv.FormatUint(uint64(fi.Mode().Perm()), 8)
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("quota: mount tmpfs: %w", err)
	}
	return nil
}

// Try reports whether this process may mount what Mount does, without a
// directory to mount it on: a one-page tmpfs is made and mounted detached
// (fsopen, fsmount), attached nowhere, then closed, so nothing is left
// behind whatever ends the process meanwhile. On a kernel without that
// interface (before 5.2) the error wraps errors.ErrUnsupported: the
// caller must try Mount on a directory of its own.
func Try() error {
	fsfd, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		if errors.Is(err, unix.ENOSYS) {
			return fmt.Errorf("quota: fsopen: %w (%w)", err, errors.ErrUnsupported)
		}
		return fmt.Errorf("quota: mount tmpfs: %w", err)
	}
	defer unix.Close(fsfd)
	if err := unix.FsconfigSetString(fsfd, "size", "4096"); err != nil {
		return fmt.Errorf("quota: mount tmpfs: %w", err)
	}
	if err := unix.FsconfigCreate(fsfd); err != nil {
		return fmt.Errorf("quota: mount tmpfs: %w", err)
	}
	mfd, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return fmt.Errorf("quota: mount tmpfs: %w", err)
	}
	return unix.Close(mfd)
}

// Mounted reports whether dir is the top of a tmpfs of its own: the
// filesystem Mount makes. (A directory merely on a tmpfs, such as one in a
// tmpfs /tmp, is not.)
func Mounted(dir string) bool {
	var sfs unix.Statfs_t
	if unix.Statfs(dir, &sfs) != nil || sfs.Type != unix.TMPFS_MAGIC {
		return false
	}
	var st, up unix.Stat_t
	if unix.Lstat(dir, &st) != nil || unix.Stat(filepath.Dir(dir), &up) != nil {
		return false
	}
	return st.Dev != up.Dev
}

// Unmount detaches the filesystem Mount put on dir, and with it everything
// written there. A directory that is not such a mount is left alone.
func Unmount(dir string) error {
	if !Mounted(dir) {
		return nil
	}
	if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("quota: unmount %s: %w", dir, err)
	}
	return nil
}

// Usage returns the bytes in use on the filesystem holding dir and the
// bytes still free there: the filesystem's own counters, read at once
// whatever the tree holds.
func Usage(dir string) (used, free int64, err error) {
	var sfs unix.Statfs_t
	if err := unix.Statfs(dir, &sfs); err != nil {
		return 0, 0, fmt.Errorf("quota: statfs %s: %w", dir, err)
	}
	bs := int64(sfs.Bsize)
	return int64(sfs.Blocks-sfs.Bfree) * bs, int64(sfs.Bavail) * bs, nil
}
