package contain

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock names of include/uapi/linux/landlock.h that golang.org/x/sys
// has (the ABI that brought each in the comment), and the one it lacks.
const (
	llFSRefer    = unix.LANDLOCK_ACCESS_FS_REFER    // ABI 2
	llFSTruncate = unix.LANDLOCK_ACCESS_FS_TRUNCATE // ABI 3

	llNetConnectTCP = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP // ABI 4
	llRuleNetPort   = 2                                    // LANDLOCK_RULE_NET_PORT, ABI 4: not in x/sys

	llScopeAbstractUnix = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET // ABI 6
	llScopeSignal       = unix.LANDLOCK_SCOPE_SIGNAL               // ABI 6
)

// The ABI versions that brought what the shim uses.
const (
	llABINet   = 4
	llABIScope = 6
)

// llRulesetAttr is struct landlock_ruleset_attr as of ABI 6; older kernels
// are given the prefix they know.
type llRulesetAttr struct {
	handledFS  uint64
	handledNet uint64
	scoped     uint64
}

// llNetPortAttr is struct landlock_net_port_attr.
type llNetPortAttr struct {
	allowed uint64
	port    uint64
}

// landlockABI returns the kernel's Landlock ABI version.
func landlockABI() (int, error) {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0, fmt.Errorf("landlock_create_ruleset(VERSION): %w", e)
	}
	return int(v), nil
}

// fsWriteRights are the write accesses the ABI knows: these are handled,
// so they are denied except beneath the writable paths. Reading and
// executing are never handled, so they stay allowed everywhere.
func fsWriteRights(abi int) uint64 {
	r := uint64(unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR |
		unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM)
	if abi >= 2 {
		r |= llFSRefer
	}
	if abi >= 3 {
		r |= llFSTruncate
	}
	return r
}

// fileRights are the accesses a rule on a file (not a directory) may hold.
const fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
	unix.LANDLOCK_ACCESS_FS_READ_FILE | llFSTruncate

// landlockPolicy is what the calling thread is restricted to.
type landlockPolicy struct {
	// Writable are the paths that keep every handled write access; nil
	// handles no filesystem access at all.
	Writable []string
	// Net handles TCP connect: only Ports stay allowed.
	Net   bool
	Ports []int
	// Scope forbids signals and abstract unix sockets outside the domain.
	Scope bool
}

// restrictSelf puts the calling thread (and what it execs or forks) in a
// new Landlock domain. The thread must have no_new_privs set. It fails
// rather than apply less than p asks.
func restrictSelf(abi int, p landlockPolicy) error {
	var attr llRulesetAttr
	size := unsafe.Sizeof(attr.handledFS)
	if p.Writable != nil {
		attr.handledFS = fsWriteRights(abi)
	}
	if p.Net {
		if abi < llABINet {
			return fmt.Errorf("landlock ABI %d cannot restrict TCP (needs %d)", abi, llABINet)
		}
		attr.handledNet = llNetConnectTCP
		size = unsafe.Sizeof(attr.handledFS) * 2
	}
	if p.Scope {
		if abi < llABIScope {
			return fmt.Errorf("landlock ABI %d has no scopes (needs %d)", abi, llABIScope)
		}
		attr.scoped = llScopeAbstractUnix | llScopeSignal
		size = unsafe.Sizeof(attr)
	}
	if attr.handledFS == 0 && attr.handledNet == 0 && attr.scoped == 0 {
		return nil
	}
	rfd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", e)
	}
	defer unix.Close(int(rfd))
	for _, path := range p.Writable {
		if err := allowWrites(int(rfd), path, attr.handledFS); err != nil {
			return err
		}
	}
	if p.Net {
		for _, port := range p.Ports {
			rule := llNetPortAttr{allowed: llNetConnectTCP, port: uint64(port)}
			_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, rfd, llRuleNetPort, uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
			if e != 0 {
				return fmt.Errorf("landlock_add_rule(port %d): %w", port, e)
			}
		}
	}
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, rfd, 0, 0); e != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", e)
	}
	return nil
}

// allowWrites adds a rule that keeps the handled rights beneath path (or,
// for a file, those a file rule may hold).
func allowWrites(rfd int, path string, handled uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("landlock rule for %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock rule for %s: %w", path, err)
	}
	allowed := handled
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		allowed &= fileRights
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: allowed, Parent_fd: int32(fd)}
	_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rfd), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	if e != 0 {
		return fmt.Errorf("landlock_add_rule(%s): %w", path, e)
	}
	return nil
}
