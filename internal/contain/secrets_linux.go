package contain

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// hideSize bounds the empty tmpfs laid over a hidden directory (read-only:
// nothing is ever written to it).
const hideSize = "size=4k,nr_inodes=16,mode=0700"

// hideAll hides each path of hide in the namespace's view (planSecrets made
// the list in the harness): a directory under an empty read-only tmpfs,
// anything else under a read-only bind of /dev/null, so a read finds no
// entry or reads nothing. A path gone since the plan is skipped. It must
// run after the sandbox's binds (a hidden path may lie in a visible tree)
// and before readOnlyExcept.
func hideAll(hide []string) error {
	for _, p := range hide {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("hide %q: not an absolute path", p)
		}
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("hide %s: %w", p, err)
		}
		if fi.IsDir() {
			err = hideDir(p)
		} else {
			err = hideFile(p)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func hideDir(p string) error {
	if err := unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, hideSize); err != nil {
		return fmt.Errorf("mount an empty tmpfs on %s: %w", p, err)
	}
	return nil
}

func hideFile(p string) error {
	if err := unix.Mount(os.DevNull, p, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind %s on %s: %w", os.DevNull, p, err)
	}
	// read-only now, keeping the flags of /dev's mount a user namespace
	// may not clear
	if err := remountReadOnly(p); err != nil {
		return fmt.Errorf("remount %s read-only: %w", p, err)
	}
	return nil
}

// tryHide is the probe's attempt at what hideAll does: an empty read-only
// tmpfs on the harness binary's directory and /dev/null on the binary, in
// the probe child's own mount namespace.
func tryHide() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if err := hideFile(exe); err != nil {
		return err
	}
	return hideDir(filepath.Dir(exe))
}
