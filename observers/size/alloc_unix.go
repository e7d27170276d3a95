//go:build unix

package size

import (
	"io/fs"
	"syscall"
)

// openDirFlags makes the open of a directory fail if it was replaced by a
// link after it was listed.
const openDirFlags = syscall.O_NOFOLLOW | syscall.O_DIRECTORY

// fileID identifies a file across its hard links.
type fileID struct{ dev, ino uint64 }

// allocated returns the bytes allocated to the file fi describes, or 0 for a
// further hard link to a file already counted (links records those).
func allocated(fi fs.FileInfo, links map[fileID]bool) int64 {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fi.Size()
	}
	if uint64(st.Nlink) > 1 && !fi.IsDir() {
		id := fileID{uint64(st.Dev), uint64(st.Ino)}
		if links[id] {
			return 0
		}
		links[id] = true
	}
	return int64(st.Blocks) * 512
}
