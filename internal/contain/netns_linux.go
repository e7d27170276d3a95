package contain

import (
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// enterLoopbackNet moves the calling thread, which must be locked and stay
// locked, into a new network namespace, raises lo, and checks that lo is
// its only interface. Sockets made on this thread afterwards, and
// processes forked from it, live in that namespace; the process's other
// threads stay where they were.
func enterLoopbackNet() error {
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("unshare(CLONE_NEWNET): %w", err)
	}
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("raising lo: socket: %w", err)
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("raising lo: %w", err)
	}
	ifr.SetUint16(unix.IFF_UP | unix.IFF_LOOPBACK | unix.IFF_RUNNING)
	if err := unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("raising lo: SIOCSIFFLAGS: %w", err)
	}
	return onlyLoopback()
}

// onlyLoopback checks that the calling thread's network namespace has no
// interface but lo.
func onlyLoopback() error {
	ifs, err := net.Interfaces()
	if err != nil {
		return fmt.Errorf("listing interfaces: %w", err)
	}
	for _, i := range ifs {
		if i.Name != "lo" {
			return fmt.Errorf("the new network namespace has interface %q besides lo", i.Name)
		}
	}
	return nil
}

// loopbackHosts are the addresses a port is proxied on, IPv4 first. IPv6
// is skipped where the namespace has none.
var loopbackHosts = []string{"127.0.0.1", "::1"}

// listenInside listens on each port of both loopback addresses in the
// calling thread's namespace, and returns each listener with the host
// address it stands for.
func listenInside(ports []int) ([]net.Listener, []string, error) {
	ports = slices.Clone(ports)
	slices.Sort(ports)
	ports = slices.Compact(ports)
	var lns []net.Listener
	var targets []string
	for _, port := range ports {
		for i, host := range loopbackHosts {
			addr := net.JoinHostPort(host, strconv.Itoa(port))
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				if i > 0 {
					continue
				}
				for _, l := range lns {
					l.Close()
				}
				return nil, nil, fmt.Errorf("proxy listener %s: %w", addr, err)
			}
			lns = append(lns, ln)
			targets = append(targets, addr)
		}
	}
	return lns, targets, nil
}

// nsClone are the namespaces every inner shim gets: pid, mount, IPC and
// UTS (the network namespace is made later, on one thread).
const nsClone = syscall.CLONE_NEWPID | syscall.CLONE_NEWNS | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS

// nsAttr starts a process in new pid, mount, IPC and UTS namespaces (and a
// user namespace, with the caller mapped to root, when user is true: root
// maps to itself, with no capability outside), killed when the forking
// thread dies.
func nsAttr(user bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Cloneflags: nsClone, Pdeathsig: syscall.SIGKILL}
	if user {
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	}
	return a
}

func nsFlags(user bool) string {
	if user {
		return "clone(CLONE_NEWUSER|CLONE_NEWPID|CLONE_NEWNS|CLONE_NEWIPC|CLONE_NEWUTS)"
	}
	return "clone(CLONE_NEWPID|CLONE_NEWNS|CLONE_NEWIPC|CLONE_NEWUTS)"
}
