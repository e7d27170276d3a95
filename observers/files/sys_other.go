//go:build !unix

package files

import (
	"errors"
	"io/fs"
	"os"
)

// hashOpenFlags opens a file for hashing.
const hashOpenFlags = os.O_RDONLY

// inode returns 0 and 1: this platform has no inode numbers, so renames are
// reported as a delete and a create.
func inode(fs.FileInfo) (ino, links uint64) { return 0, 1 }

// isLimit treats every failure to watch as a limit: the observer falls back
// to full walks.
func isLimit(error) bool { return true }

// isGone reports whether err says the path no longer exists.
func isGone(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// allocated is the file's size where the platform gives no block count.
func allocated(fi fs.FileInfo) int64 { return fi.Size() }
