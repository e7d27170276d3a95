package process

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/smbin"
)

// modeVar selects what the re-executed test binary does instead of testing.
const modeVar = "SEALMARK_PROCTEST"

// clearEnvVar, when set for the daemon mode, gives the daemon an environment
// without the run marker.
const clearEnvVar = "SEALMARK_PROCTEST_CLEARENV"

// TestMain lets the test binary act as the sm-* programs and as the
// processes the tests watch, and makes it a subreaper, as the harness is.
func TestMain(m *testing.M) {
	smbin.Dispatch()
	if mode := os.Getenv(modeVar); mode != "" {
		os.Exit(child(mode))
	}
	if err := EnableSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "EnableSubreaper:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// child runs one mode of the re-executed test binary.
func child(mode string) int {
	switch mode {
	case "sleep": // a bounded sleep: even a leak ends by itself
		time.Sleep(60 * time.Second)
	case "brief":
		time.Sleep(300 * time.Millisecond)
	case "ticking": // wakes every 30 ms for a minute, as a retry loop does
		fmt.Println("ready")
		for range 2000 {
			time.Sleep(30 * time.Millisecond)
		}
	case "spawn": // "go ARGS" starts a sleeper, "brief ARGS" a short-lived one
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 0 {
				continue
			}
			c := reexec(map[string]string{"go": "sleep", "brief": "brief"}[f[0]], os.Environ(), f[1:]...)
			if err := c.Start(); err != nil {
				return 1
			}
			fmt.Println(c.Process.Pid)
			if f[0] == "brief" {
				_ = c.Wait()
				fmt.Println("done")
			}
		}
		time.Sleep(60 * time.Second)
	case "stubborn": // ignores SIGTERM
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		time.Sleep(60 * time.Second)
	case "tree":
		for i := 0; i < 2; i++ {
			if err := reexec("sleep", os.Environ()).Start(); err != nil {
				return 1
			}
		}
		fmt.Println("ready")
		time.Sleep(60 * time.Second)
	case "daemon": // double fork: a middle process starts a setsid sleeper and exits
		mid := reexec("mid", os.Environ())
		mid.Stdout = os.Stdout
		if err := mid.Run(); err != nil {
			return 1
		}
		time.Sleep(60 * time.Second)
	case "mid":
		env := os.Environ()
		marker := os.Getenv(MarkerName)
		if os.Getenv(clearEnvVar) != "" {
			env = nil
		}
		d := reexec("sleep", env, "daemon", marker)
		d.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := d.Start(); err != nil {
			return 1
		}
		fmt.Println(d.Process.Pid)
	default:
		return 2
	}
	return 0
}

// reexec is the test binary in mode, with env (plus the mode) and args.
func reexec(mode string, env []string, args ...string) *exec.Cmd {
	exe, _ := os.Executable()
	c := exec.Command(exe, args...)
	c.Env = append(append([]string{}, env...), modeVar+"="+mode)
	return c
}
