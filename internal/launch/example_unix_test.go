//go:build unix

package launch_test

import (
	"fmt"
	"io"
	"time"

	"github.com/sealmark/sealmark/internal/launch"
)

func ExampleStart() {
	proc, err := launch.Start(launch.Spec{
		Path: "/bin/sh",
		Args: []string{"-c", `echo "server v1 starting"; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; echo oops >&2`},
		Env:  []string{"PATH=/usr/bin:/bin"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs, _ := io.ReadAll(proc.Messages()) // what mcp-go would read
	report := proc.Stop(2*time.Second, 3*time.Second)

	fmt.Printf("messages: %s", msgs)
	for _, f := range proc.Frames(0) {
		fmt.Printf("frame %d: %s %q\n", f.Seq, f.Kind, f.Data)
	}
	fmt.Printf("stderr: %q\n", proc.Log().Tail(100))
	fmt.Println("status:", report.Status)
	// Output:
	// messages: {"jsonrpc":"2.0","id":1,"result":{}}
	// frame 0: garbage "server v1 starting"
	// frame 1: json "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"
	// stderr: "oops\n"
	// status: exit status 0
}
