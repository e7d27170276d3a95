//go:build unix

package process_test

import (
	"fmt"
	"os/exec"
	"syscall"
	"time"

	"github.com/sealmark/sealmark/observers/process"
)

// Example shows one start of a server as the engine drives it: the marker
// in its environment, tracking, one probe, and the sweep after it stopped.
func Example() {
	_ = process.EnableSubreaper()
	marker := process.Marker()
	obs, err := process.New(process.Options{Marker: marker, Bin: "/tmp/sandbox/bin"})
	if err != nil {
		fmt.Println(err) // not Linux
		return
	}
	cmd := exec.Command("/usr/local/bin/mcp-server")
	cmd.Env = []string{"PATH=/tmp/sandbox/bin:/usr/bin:/bin", marker}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fmt.Println(err)
		return
	}
	obs.Track(cmd.Process.Pid)

	obs.Begin("probe-7f3a")
	// ... the probe calls the server ...
	for _, r := range obs.Collect("probe-7f3a") {
		fmt.Println(r.Summary) // pid 4242 (ppid 4240) spawned: curl -s http://127.0.0.1:8080/
	}

	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	_ = cmd.Wait()
	for _, r := range obs.Sweep(2 * time.Second) {
		fmt.Println(r.Summary) // pid 4250 was still running after its start stopped: sleep 600
	}
	obs.Close()
}
