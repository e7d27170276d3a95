package sockets_test

import (
	"fmt"
	"net"
	"os"

	"github.com/sealmark/sealmark/observers/sockets"
)

func ExampleListeners() {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()

	ls, err := sockets.Listeners([]int{os.Getpid()})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range ls {
		if l.Port == ln.Addr().(*net.TCPAddr).Port {
			fmt.Println(l.Proto, l.Addr, l.Scope())
		}
	}
	// Output: tcp 127.0.0.1 loopback
}
