package sockets

import (
	"fmt"
	"net"
	"os"
	"testing"
	"time"
)

// modeVar makes the re-executed test binary a process that opens sockets.
const modeVar = "SEALMARK_SOCKTEST"

func TestMain(m *testing.M) {
	if os.Getenv(modeVar) == "listen" {
		os.Exit(listenChild())
	}
	os.Exit(m.Run())
}

// listenChild opens listeners and sockets that are not listeners, prints
// "NAME PORT" for each listener and then "ready", and sleeps (bounded).
// Everything is on loopback, except a listener bound to 0.0.0.0, which
// nothing connects to.
func listenChild() int {
	say := func(name string, a net.Addr) {
		switch a := a.(type) {
		case *net.TCPAddr:
			fmt.Println(name, a.Port)
		case *net.UDPAddr:
			fmt.Println(name, a.Port)
		}
	}
	lo, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return 1
	}
	say("tcp-lo", lo.Addr())
	all, err := net.Listen("tcp4", "0.0.0.0:0")
	if err != nil {
		return 1
	}
	say("tcp-all", all.Addr())
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		return 1
	}
	say("udp-lo", udp.LocalAddr())
	if l6, err := net.Listen("tcp6", "[::1]:0"); err == nil {
		say("tcp6-lo", l6.Addr())
	}
	// Not listeners: both ends of a loopback TCP connection and a
	// connected UDP socket.
	go func() {
		if c, err := lo.Accept(); err == nil {
			defer c.Close()
			time.Sleep(60 * time.Second)
		}
	}()
	c, err := net.Dial("tcp4", lo.Addr().String())
	if err != nil {
		return 1
	}
	defer c.Close()
	u, err := net.Dial("udp4", udp.LocalAddr().String())
	if err != nil {
		return 1
	}
	defer u.Close()
	fmt.Println("client", c.LocalAddr().(*net.TCPAddr).Port)
	fmt.Println("udp-client", u.LocalAddr().(*net.UDPAddr).Port)
	fmt.Println("ready")
	time.Sleep(60 * time.Second)
	return 0
}
