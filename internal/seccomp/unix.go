package seccomp

import (
	"net"
	"slices"
	"strings"
)

// A UnixSocket is a pathname unix-socket destination, resolved as the
// calling process sees it (its root, its working directory, every symbolic
// link and mount along the way): the policy judges the socket the call
// would reach, not the string it was given. Abstract sockets ("@name")
// stay *net.UnixAddr.
type UnixSocket struct {
	Path string // as the process gave it, made absolute against its working directory
	// Err says why the path could not be resolved (no such socket, a
	// process that went away); the other fields are then empty.
	Err string

	id    FileID   // the socket's inode
	chain []FileID // its directories, from its own up to the process's root
}

// Network returns "unix".
func (u *UnixSocket) Network() string { return "unix" }

// String returns the path.
func (u *UnixSocket) String() string { return u.Path }

// A FileID names an inode on this machine: its device and inode numbers.
type FileID struct{ Dev, Ino uint64 }

// Contained is the policy of a contained server: loopback addresses only
// on ports (the harness's listeners and the declared services); pathname
// unix sockets only inside dirs (the sandbox, as seen from the host; the
// directory tree under each counts) or exactly the sockets named in
// sockets (declared services), each compared by inode, so a symbolic link
// or a bind mount to a host socket does not pass for one inside the
// sandbox; abstract unix sockets only when abstract is true (they are
// private to a network namespace, so a server in its own namespace can
// reach only its own). A directory or socket that cannot be looked up is
// left out: it allows nothing.
func Contained(ports []int, dirs, sockets []string, abstract bool) func(net.Addr) bool {
	ip := Ports(ports...)
	var dirIDs, sockIDs []FileID
	for _, d := range dirs {
		if id, err := fileID(d); err == nil {
			dirIDs = append(dirIDs, id)
		}
	}
	for _, s := range sockets {
		if id, err := fileID(s); err == nil {
			sockIDs = append(sockIDs, id)
		}
	}
	return func(addr net.Addr) bool {
		switch a := addr.(type) {
		case *UnixSocket:
			if a.Err != "" {
				return false
			}
			if slices.Contains(sockIDs, a.id) {
				return true
			}
			for _, d := range a.chain {
				if slices.Contains(dirIDs, d) {
					return true
				}
			}
			return false
		case *net.UnixAddr:
			return abstract && strings.HasPrefix(a.Name, "@")
		}
		return ip(addr)
	}
}
