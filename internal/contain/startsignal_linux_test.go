package contain_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/launch"
)

func init() {
	// startloop is a harness that starts and stops a contained server in
	// a cgroup leaf (with v1 groups for the limits where the host binds
	// them to v1) again and again, as a run's packs do, and takes the
	// signal path of the front ends: cleanup.Exit, then exit 128+n.
	children["startloop"] = func([]string) int {
		cleanup.OnSignal(func(sig os.Signal) {
			cleanup.Exit()
			os.Exit(cleanup.ExitCode(sig))
		})
		exe, err := os.Executable()
		if err != nil {
			return 1
		}
		spec := launch.Spec{Path: exe, Args: []string{childArg, "sleep"}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: "/"}
		o := contain.Options{NetNS: true, Cgroup: true, MaxProcs: 64, MaxMemory: 256 << 20}
		fmt.Println("ready")
		for {
			w, hand, err := contain.WrapEgress(spec, o)
			if err != nil {
				continue // a signal's cleanup may have removed the leaf being made
			}
			proc, err := launch.Start(w)
			if err != nil {
				hand.Cancel()
				continue
			}
			proc.Stop(0, time.Second)
			_, _ = hand.Cgroup().Remove()
		}
	}
}

// TestSignalDuringStartLeavesNoCgroup signals a harness's process group
// (a Ctrl-C to go test) at many points of a contained start: whatever the
// signal interrupts (the leaf being made, its v1 groups, the spawn into
// it, the stop), the cleanup leaves no cgroup of the harness's behind,
// in the v2 hierarchy or the v1 ones.
func TestSignalDuringStartLeavesNoCgroup(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: signals at many points of a contained start")
	}
	needLayer(t, "cgroup")
	needLayer(t, "netns")
	home, err := contain.CgroupHome()
	require.NoError(t, err)
	homes := []string{home}
	for _, ctrl := range []string{"pids", "memory"} {
		if h, err := contain.V1Home(ctrl); err == nil {
			homes = append(homes, h)
		}
	}
	self, err := os.Executable()
	require.NoError(t, err)
	// From the harness's first probe of the layers to its starts in a
	// loop, a few dozen milliseconds apart.
	for i := range 20 {
		delay := time.Duration(i) * 37 * time.Millisecond
		cmd := exec.Command(self, childArg, "startloop")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Stderr = &lockedBuffer{}
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		ready := make(chan string, 1)
		go func() {
			line, _ := bufio.NewReader(out).ReadString('\n')
			ready <- line
		}()
		select {
		case line := <-ready:
			require.Equal(t, "ready\n", line)
		case <-time.After(60 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
			t.Fatalf("the harness did not start within 60 s: %s", cmd.Stderr)
		}
		time.Sleep(delay)
		require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGINT))
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
			t.Errorf("delay %v: the harness did not exit within 60 s of SIGINT", delay)
		}
		prefix := "sealmark-" + strconv.Itoa(cmd.Process.Pid) + "-"
		for _, h := range homes {
			entries, _ := os.ReadDir(h)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), prefix) {
					path := filepath.Join(h, e.Name())
					t.Errorf("delay %v: cgroup left behind: %s", delay, path)
					_ = os.WriteFile(filepath.Join(path, "cgroup.kill"), []byte("1"), 0)
					time.Sleep(50 * time.Millisecond)
					_ = unix.Rmdir(path)
				}
			}
		}
	}
}
