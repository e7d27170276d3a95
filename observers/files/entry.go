package files

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"
)

// Entry types.
const (
	TypeFile  = "file"
	TypeDir   = "dir"
	TypeLink  = "link"
	TypeOther = "other" // fifo, socket, device
)

// Entry is what a snapshot holds for one path under the sandbox top.
type Entry struct {
	Path   string      // relative to the top, with forward slashes: "root/ok.txt"
	Type   string      // TypeFile, TypeDir, TypeLink or TypeOther
	Size   int64       // bytes, from lstat
	Mode   fs.FileMode // type and permission bits, from lstat
	MTime  time.Time   // modification time, from lstat
	Target string      // a link's target as written, never followed
	Hash   string      // regular files up to the hash limit: first 16 hex digits of the content's SHA-256; "" otherwise
	Ino    uint64      // inode number (0 where the platform has none); renames are paired by it
	// Alloc is the bytes the file system gives it (st_blocks); not part
	// of its state for Diff, only of the observer's running total.
	Alloc int64
}

// same reports whether e and o describe the same state of a path.
func (e Entry) same(o Entry) bool {
	return e.Path == o.Path && e.Type == o.Type && e.Size == o.Size && e.Mode == o.Mode &&
		e.MTime.Equal(o.MTime) && e.Target == o.Target && e.Hash == o.Hash && e.Ino == o.Ino
}

// typeOf maps lstat mode bits to an entry type.
func typeOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return TypeFile
	case m.IsDir():
		return TypeDir
	case m&fs.ModeSymlink != 0:
		return TypeLink
	}
	return TypeOther
}

// hashFile hashes the regular file name in dir, which lstat described as
// want, reading at most limit bytes. It returns "" when the file is no longer
// that regular file, cannot be read, or has grown past limit. The open never
// leaves dir (os.Root) and never blocks on a fifo swapped in under the name.
func hashFile(dir *os.Root, name string, want Entry, limit int64, buf []byte) string {
	f, err := dir.OpenFile(name, hashOpenFlags, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	if ino, _ := inode(fi); ino != want.Ino {
		return ""
	}
	h := sha256.New()
	n, err := io.CopyBuffer(h, io.LimitReader(f, limit+1), buf)
	if err != nil || n > limit {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// modeString formats permission and special bits the way chmod takes them: "0644", "4755".
func modeString(m fs.FileMode) string {
	v := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		v |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		v |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		v |= 0o1000
	}
	return fmt.Sprintf("%04o", v)
}

// show returns a server-chosen name fit for a one-line summary: as it is when
// it is printable, Go-quoted otherwise.
func show(s string) string {
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
