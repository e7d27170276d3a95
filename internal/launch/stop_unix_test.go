//go:build unix

package launch_test

import (
	"encoding/json"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/launch"
)

// A process that left the group cannot be found or killed by Stop, but it
// must not keep Stop (or the goroutines reading stdout and stderr) waiting.
func TestStopReturnsWhenAProcessEscapedTheGroupHoldingItsPipes(t *testing.T) {
	before := runtime.NumGoroutine()
	p := start(t, "escape", launch.Spec{})
	msgs := readMessages(p)
	var info struct{ Escaped int }
	if err := json.Unmarshal(waitFrame(t, p, "escaped").Data, &info); err != nil || info.Escaped == 0 {
		t.Fatalf("escaped pid: %v", err)
	}
	t.Cleanup(func() {
		if proc, err := os.FindProcess(info.Escaped); err == nil {
			proc.Kill()
		}
	})

	var r launch.StopReport
	within(t, "Stop", func() { r = p.Stop(10*time.Second, 10*time.Second) })
	if !r.ExitedOnStdinClose || len(r.Leftover) != 0 {
		t.Errorf("Stop() = %+v, want the leader's own exit and no leftover in its group", r)
	}
	msgs.all(t) // Messages ends although the escaped process still holds stdout
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Stop, want at most the %d from before Start: a pipe reader outlived Stop", n, before)
	}
	if runtime.GOOS == "linux" && !running(info.Escaped) {
		t.Errorf("the escaped process %d is gone: the test did not exercise an escape", info.Escaped)
	}
}
