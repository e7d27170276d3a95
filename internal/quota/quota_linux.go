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
