package sockets

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Listening is one listening (TCP) or bound, unconnected (UDP) socket.
type Listening struct {
	Proto         string // "tcp", "tcp6", "udp", "udp6": the table it is in
	Addr          string // the local address, IPv4-mapped addresses unmapped: "127.0.0.1", "::"
	Port          int
	Inode         uint64
	PID           int  // a process holding it (the lowest pid when several do)
	AllInterfaces bool // bound to 0.0.0.0 or ::
	Loopback      bool // bound to 127.0.0.0/8 or ::1
}

// Scope is "loopback", "all-interfaces" or "other".
func (l Listening) Scope() string {
	switch {
	case l.Loopback:
		return "loopback"
	case l.AllInterfaces:
		return "all-interfaces"
	}
	return "other"
}

// Bounds on what Listeners reads.
const (
	maxFDs   = 16384    // descriptors checked per process
	maxTable = 16 << 20 // bytes read of one socket table
)

var tables = []string{"tcp", "tcp6", "udp", "udp6"}

// Listeners returns the listening sockets held by pids, in pid and port
// order. What it found is returned even with an error (a process with too
// many descriptors, an unreadable table). It needs /proc (Linux).
func Listeners(pids []int) ([]Listening, error) {
	if !haveProc {
		return nil, errors.ErrUnsupported
	}
	return listeners("/proc", pids)
}

func listeners(root string, pids []int) ([]Listening, error) {
	pids = slices.Clone(pids)
	slices.Sort(pids)
	var errs []error
	owners := map[string]map[uint64]int{} // network namespace → socket inode → pid
	reader := map[string]int{}            // network namespace → the pid whose tables are read
	var order []string                    // namespaces in pid order
	for _, pid := range slices.Compact(pids) {
		ns, _ := os.Readlink(filepath.Join(root, strconv.Itoa(pid), "ns", "net"))
		owner := owners[ns]
		if owner == nil {
			owner = map[uint64]int{}
		}
		n, err := socketInodes(root, pid, owner)
		if err != nil {
			errs = append(errs, err)
		}
		if n == 0 {
			continue
		}
		if _, ok := reader[ns]; !ok {
			owners[ns], reader[ns] = owner, pid
			order = append(order, ns)
		}
	}
	var out []Listening
	for _, ns := range order {
		for _, proto := range tables {
			path := filepath.Join(root, strconv.Itoa(reader[ns]), "net", proto)
			ls, err := readTable(path, proto, owners[ns])
			if err != nil && !errors.Is(err, os.ErrNotExist) { // no tcp6 without IPv6
				errs = append(errs, err)
			}
			out = append(out, ls...)
		}
	}
	slices.SortFunc(out, func(a, b Listening) int {
		if a.PID != b.PID {
			return a.PID - b.PID
		}
		if a.Port != b.Port {
			return a.Port - b.Port
		}
		return strings.Compare(a.Proto, b.Proto)
	})
	return out, errors.Join(errs...)
}

// socketInodes adds the socket inodes pid holds to owner (keeping an earlier
// owner) and returns how many it holds. A process that is gone holds none.
func socketInodes(root string, pid int, owner map[uint64]int) (int, error) {
	dir := filepath.Join(root, strconv.Itoa(pid), "fd")
	d, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil // gone
	}
	if err != nil {
		return 0, fmt.Errorf("pid %d: descriptors not checked for sockets: %w", pid, err)
	}
	defer d.Close()
	names, err := d.Readdirnames(maxFDs + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, nil
	}
	var tooMany error
	if len(names) > maxFDs {
		names = names[:maxFDs]
		tooMany = fmt.Errorf("pid %d has more than %d descriptors; the rest were not checked for sockets", pid, maxFDs)
	}
	n := 0
	for _, name := range names {
		target, err := os.Readlink(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		inode, ok := socketInode(target)
		if !ok {
			continue
		}
		n++
		if _, seen := owner[inode]; !seen {
			owner[inode] = pid
		}
	}
	return n, tooMany
}

// socketInode parses a descriptor's link target "socket:[12345]".
func socketInode(target string) (uint64, bool) {
	s, ok := strings.CutPrefix(target, "socket:[")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, "]")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// readTable reads one /proc/net table and returns the listening sockets
// whose inode is in owner.
func readTable(path, proto string, owner map[uint64]int) ([]Listening, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lr := &io.LimitedReader{R: f, N: maxTable}
	sc := bufio.NewScanner(lr)
	var out []Listening
	for sc.Scan() {
		e, ok := parseLine(proto, sc.Text())
		if !ok || !e.listening() {
			continue
		}
		pid, ours := owner[e.inode]
		if !ours {
			continue
		}
		out = append(out, e.listener(pid))
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%s: %w", path, err)
	}
	if lr.N <= 0 {
		return out, fmt.Errorf("%s: over %d bytes; the rest was not read", path, maxTable)
	}
	return out, nil
}

// entry is one line of a /proc/net/{tcp,tcp6,udp,udp6} table.
type entry struct {
	proto  string
	local  netip.AddrPort
	remote netip.AddrPort
	state  uint8
	inode  uint64
}

// Socket states in the tables (include/net/tcp_states.h).
const (
	stateListen = 0x0A // TCP_LISTEN
	stateClose  = 0x07 // TCP_CLOSE: an unconnected UDP socket
)

func (e entry) listening() bool {
	if strings.HasPrefix(e.proto, "tcp") {
		return e.state == stateListen
	}
	return e.state == stateClose && e.remote.Port() == 0
}

func (e entry) listener(pid int) Listening {
	a := e.local.Addr().Unmap()
	return Listening{
		Proto:         e.proto,
		Addr:          a.String(),
		Port:          int(e.local.Port()),
		Inode:         e.inode,
		PID:           pid,
		AllInterfaces: a.IsUnspecified(),
		Loopback:      a.IsLoopback(),
	}
}

// parseLine parses a table line:
//
//	sl  local_address rem_address   st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
//	0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 12345 1 ...
//
// The header line and anything malformed give ok == false.
func parseLine(proto, line string) (entry, bool) {
	f := strings.Fields(line)
	if len(f) < 10 || !strings.HasSuffix(f[0], ":") {
		return entry{}, false
	}
	local, ok1 := parseAddrPort(f[1])
	remote, ok2 := parseAddrPort(f[2])
	state, err1 := strconv.ParseUint(f[3], 16, 8)
	inode, err2 := strconv.ParseUint(f[9], 10, 64)
	if !ok1 || !ok2 || err1 != nil || err2 != nil {
		return entry{}, false
	}
	return entry{proto: proto, local: local, remote: remote, state: uint8(state), inode: inode}, true
}

// parseAddrPort parses "0100007F:1F90": the address as the kernel prints it
// (each 32-bit word in host byte order, in hex), then the port in hex.
func parseAddrPort(s string) (netip.AddrPort, bool) {
	hexAddr, hexPort, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, false
	}
	port, err := strconv.ParseUint(hexPort, 16, 16)
	if err != nil {
		return netip.AddrPort{}, false
	}
	raw, err := hex.DecodeString(hexAddr)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, false
	}
	b := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	addr, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(addr, uint16(port)), true
}
