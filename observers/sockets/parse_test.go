package sockets

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The tables print each 32-bit word in host byte order; these lines are
// what a little-endian machine prints.
func skipBigEndian(t *testing.T) {
	var b [2]byte
	binary.NativeEndian.PutUint16(b[:], 1)
	if b[0] != 1 {
		t.Skip("the sample lines are in little-endian host order")
	}
}

func TestParseLine(t *testing.T) {
	skipBigEndian(t)
	tests := []struct {
		name      string
		proto     string
		line      string
		ok        bool
		listening bool
		want      Listening
	}{
		{"header", "tcp", "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode", false, false, Listening{}},
		{"tcp loopback listen", "tcp", "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 12345 1 0000000000000000 100 0 0 10 0", true, true,
			Listening{Proto: "tcp", Addr: "127.0.0.1", Port: 8080, Inode: 12345, Loopback: true}},
		{"tcp all interfaces", "tcp", "   1: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777 1 0 100 0 0 10 0", true, true,
			Listening{Proto: "tcp", Addr: "0.0.0.0", Port: 80, Inode: 777, AllInterfaces: true}},
		{"tcp other address", "tcp", "   2: 0500000A:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 778 1", true, true,
			Listening{Proto: "tcp", Addr: "10.0.0.5", Port: 22, Inode: 778}},
		{"tcp established is not a listener", "tcp", "   3: 0100007F:9C40 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 779 1", true, false, Listening{}},
		{"tcp6 all interfaces", "tcp6", "   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 880 1", true, true,
			Listening{Proto: "tcp6", Addr: "::", Port: 8080, Inode: 880, AllInterfaces: true}},
		{"tcp6 loopback", "tcp6", "   1: 00000000000000000000000001000000:0035 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 881 1", true, true,
			Listening{Proto: "tcp6", Addr: "::1", Port: 53, Inode: 881, Loopback: true}},
		{"tcp6 IPv4-mapped loopback", "tcp6", "   2: 0000000000000000FFFF00000100007F:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 882 1", true, true,
			Listening{Proto: "tcp6", Addr: "127.0.0.1", Port: 8081, Inode: 882, Loopback: true}},
		{"tcp6 IPv4-mapped any", "tcp6", "   3: 0000000000000000FFFF000000000000:1F92 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 883 1", true, true,
			Listening{Proto: "tcp6", Addr: "0.0.0.0", Port: 8082, Inode: 883, AllInterfaces: true}},
		{"tcp6 global address", "tcp6", "   4: B80D0120000000000000000007000000:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 884 1", true, true,
			Listening{Proto: "tcp6", Addr: "2001:db8::7", Port: 80, Inode: 884}},
		{"udp bound", "udp", "  10: 0100007F:14E9 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 990 2 0000000000000000 0", true, true,
			Listening{Proto: "udp", Addr: "127.0.0.1", Port: 5353, Inode: 990, Loopback: true}},
		{"udp connected is not a listener", "udp", "  11: 0100007F:D431 0100007F:0035 01 00000000:00000000 00:00000000 00000000     0        0 991 2 0", true, false, Listening{}},
		{"bad address", "tcp", "   0: 0100007:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1", false, false, Listening{}},
		{"bad inode", "tcp", "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 x 1", false, false, Listening{}},
		{"short", "tcp", "   0: 0100007F:1F90", false, false, Listening{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := parseLine(tt.proto, tt.line)
			if ok != tt.ok {
				t.Fatalf("parseLine ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if e.listening() != tt.listening {
				t.Fatalf("listening() = %v, want %v", e.listening(), tt.listening)
			}
			if !tt.listening {
				return
			}
			if got := e.listener(0); got != tt.want {
				t.Errorf("listener = %+v\nwant        %+v", got, tt.want)
			}
		})
	}
}

func TestSocketInode(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"socket:[12345]", 12345, true},
		{"pipe:[12345]", 0, false},
		{"socket:[12x]", 0, false},
		{"socket:[1", 0, false},
		{"/dev/null", 0, false},
	} {
		if got, ok := socketInode(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("socketInode(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestListenersFakeProc(t *testing.T) {
	skipBigEndian(t)
	root := t.TempDir()
	mk := func(pid int, ns string, fds map[string]string, tcp string) {
		dir := filepath.Join(root, strconv.Itoa(pid))
		for _, d := range []string{"fd", "ns", "net"} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(ns, filepath.Join(dir, "ns", "net")); err != nil {
			t.Fatal(err)
		}
		for fd, target := range fds {
			if err := os.Symlink(target, filepath.Join(dir, "fd", fd)); err != nil {
				t.Fatal(err)
			}
		}
		header := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		if err := os.WriteFile(filepath.Join(dir, "net", "tcp"), []byte(header+tcp), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	table := "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 100 1\n" +
		"   1: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 200 1\n" +
		"   2: 00000000:0051 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 300 1\n"
	// 10 and 11 share a namespace and the socket 100 (inherited); 11 also
	// holds 200. 12 is in another namespace and holds 300. Both namespaces'
	// tables list all three inodes: each socket must come from its own
	// namespace's table, once.
	mk(10, "net:[1]", map[string]string{"0": "/dev/null", "3": "socket:[100]"}, table)
	mk(11, "net:[1]", map[string]string{"3": "socket:[100]", "4": "socket:[200]", "5": "pipe:[9]"}, "")
	mk(12, "net:[2]", map[string]string{"3": "socket:[300]"}, table)
	mk(14, "net:[1]", map[string]string{"7": "socket:[999]"}, "") // a socket no table lists

	got, err := listeners(root, []int{12, 11, 10, 11, 14, 15 /* gone */})
	if err != nil {
		t.Fatal(err)
	}
	want := []Listening{
		{Proto: "tcp", Addr: "127.0.0.1", Port: 8080, Inode: 100, PID: 10, Loopback: true},
		{Proto: "tcp", Addr: "0.0.0.0", Port: 80, Inode: 200, PID: 11, AllInterfaces: true},
		{Proto: "tcp", Addr: "0.0.0.0", Port: 81, Inode: 300, PID: 12, AllInterfaces: true},
	}
	if len(got) != len(want) {
		t.Fatalf("listeners = %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("listener %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
