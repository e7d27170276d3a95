package contain

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// securebits (linux/securebits.h): exec as uid 0 grants nothing, setuid
// changes leave capabilities alone, no ambient capability can be raised,
// and each of these is locked.
const lockedSecurebits = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<5 | 1<<6 | 1<<7

// dropCaps leaves the calling thread, and what it forks and execs, with no
// capability and no way to get one back: securebits locked, the bounding
// set empty, no ambient capabilities, then every set cleared. Capabilities
// are per thread: the shim's other threads keep theirs (the proxy's setns
// needs them).
func dropCaps() error {
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, lockedSecurebits, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_SECUREBITS): %w", err)
	}
	for c := 0; c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if errors.Is(err, unix.EINVAL) {
				break // past the kernel's last capability
			}
			return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_CAP_AMBIENT_CLEAR_ALL): %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// tryMounts is what setupMounts needs, tried in the probe child's own
// mount namespace: a private propagation, a proc of its own and a
// read-only remount of /.
func tryMounts() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("mount --make-rslave /: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount proc on /proc: %w", err)
	}
	return readOnlyExcept(map[string]bool{})
}

// tryIPCUTS sets the hostname to what it is: only a process that owns its
// UTS namespace may (the clone made one), and nothing changes even if not.
func tryIPCUTS() error {
	h, err := os.Hostname()
	if err != nil {
		return err
	}
	if err := unix.Sethostname([]byte(h)); err != nil {
		return fmt.Errorf("sethostname in the new UTS namespace: %w", err)
	}
	return nil
}
