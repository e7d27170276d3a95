//go:build unix

package contain

import (
	"fmt"
	"os"
	"syscall"
)

// ownedByMe checks that path is a directory (or, with dir false, a regular
// file), not a link, and belongs to the calling user.
func ownedByMe(path string, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if dir && !fi.IsDir() || !dir && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: unexpected file type %s", path, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s: owned by uid %d", path, st.Uid)
	}
	return nil
}
