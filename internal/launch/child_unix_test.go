//go:build unix

package launch_test

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func init() {
	// escape starts a sleeper in a process group of its own that keeps
	// stdout and stderr open, prints the sleeper's pid and exits.
	children["escape"] = func() int {
		exe, err := os.Executable()
		if err != nil {
			return 1
		}
		cmd := exec.Command(exe, childArg, "sleeper")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			return 1
		}
		fmt.Printf(`{"escaped":%d}`+"\n", cmd.Process.Pid)
		return 0
	}
}
