//go:build unix

package files

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// hashOpenFlags opens a file for hashing without blocking on a fifo.
const hashOpenFlags = os.O_RDONLY | syscall.O_NONBLOCK

// inode returns the inode number and link count lstat reported.
func inode(fi fs.FileInfo) (ino, links uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 1
	}
	return uint64(st.Ino), uint64(st.Nlink)
}

// isLimit reports whether a failure to watch a directory comes from a system
// limit (watches, descriptors, memory) rather than from the directory itself.
func isLimit(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) ||
		errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ENOMEM)
}

// isGone reports whether err says the path no longer exists as a directory.
func isGone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// allocated is the bytes the file system gives the file fi describes
// (st_blocks, which a sparse file keeps below its size).
func allocated(fi fs.FileInfo) int64 {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fi.Size()
	}
	return int64(st.Blocks) * 512
}
