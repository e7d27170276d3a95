//go:build unix

package smbin

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// killGroup starts cmd in a process group of its own and makes its
// context's end kill the whole group: go build's compiler and linker
// children too.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// checkPrivate makes sure that nobody but this user (or root) can change
// p or put something else in its place: p and every directory above it
// belong to this process's effective user or to root, and nobody else may
// write them: not the world (but for a sticky directory above p, /tmp,
// where others cannot rename or remove what is not theirs), nor a group
// other than this user's own or root's. p has no links in it. Without the
// check a root harness whose HOME is a user's (sudo keeping HOME) would run
// what that user put in the cache.
func checkPrivate(p string) error {
	uid, gid := uint32(os.Geteuid()), uint32(os.Getegid())
	for q := p; ; q = filepath.Dir(q) {
		fi, err := os.Lstat(q)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		perm := fi.Mode().Perm()
		sticky := q != p && fi.IsDir() && fi.Mode()&fs.ModeSticky != 0
		switch {
		case st.Uid != uid && st.Uid != 0:
			return fmt.Errorf("%s belongs to uid %d, not to this user (uid %d) or root", q, st.Uid, uid)
		case perm&0o002 != 0 && !sticky,
			perm&0o020 != 0 && st.Gid != gid && st.Gid != 0 && !sticky:
			return fmt.Errorf("%s is writable by others (mode %v, gid %d)", q, fi.Mode(), st.Gid)
		}
		if q == filepath.Dir(q) {
			return nil
		}
	}
}
