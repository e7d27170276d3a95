package contain_test

import (
	"net/netip"
	"os/exec"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

func init() {
	// connects makes args[1] blocking TCP connects to the IPv4 loopback
	// address args[0] (closing each) and prints the time spent in
	// connect(2) in all, in ns: what the egress filter intercepts.
	children["connects"] = func(args []string) int {
		ap, err := netip.ParseAddrPort(args[0])
		if err != nil {
			return emit(result{"err": errText(err)})
		}
		n, _ := strconv.Atoi(args[1])
		sa := &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
		var spent time.Duration
		for range n {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				return emit(result{"err": errText(err)})
			}
			t0 := time.Now()
			err = unix.Connect(fd, sa)
			spent += time.Since(t0)
			unix.Close(fd)
			if err != nil {
				return emit(result{"err": errText(err)})
			}
		}
		return emit(result{"ns": spent.Nanoseconds()})
	}
	// execs runs /bin/true args[0] times and prints the time it took in
	// all, in ns.
	children["execs"] = func(args []string) int {
		n, _ := strconv.Atoi(args[0])
		t0 := time.Now()
		for range n {
			if err := exec.Command("/bin/true").Run(); err != nil {
				return emit(result{"err": errText(err)})
			}
		}
		return emit(result{"ns": time.Since(t0).Nanoseconds()})
	}
}
