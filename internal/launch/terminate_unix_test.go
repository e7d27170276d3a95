//go:build unix

package launch_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/launch"
)

// Terminate stops the leader as a client stops a server that ignores its
// stdin: SIGTERM, then SIGKILL after the grace, and nothing when it had
// exited. It signals the leader alone: what the leader started in its
// group lives on for the caller to see, and Stop sweeps it later.
func TestTerminateSignalsTheLeaderAlone(t *testing.T) {
	skipWithoutProcessGroups(t)
	t.Run("sigterm", func(t *testing.T) {
		p := start(t, "parent", launch.Spec{})
		var info struct{ Sleeper int }
		if err := json.Unmarshal(waitFrame(t, p, "sleeper").Data, &info); err != nil || info.Sleeper == 0 {
			t.Fatalf("sleeper pid: %v", err)
		}
		var sent []string
		within(t, "Terminate", func() { sent = p.Terminate(10 * time.Second) })
		if !slices.Equal(sent, []string{"SIGTERM"}) || p.ExitStatus() != "signal: terminated" {
			t.Errorf("Terminate() = %v, status %q; want [SIGTERM] and signal: terminated", sent, p.ExitStatus())
		}
		if !running(info.Sleeper) {
			t.Errorf("the sleeper %d in the leader's group was stopped too", info.Sleeper)
		}
		if again := p.Terminate(time.Second); again != nil {
			t.Errorf("Terminate() after the exit = %v, want nothing sent", again)
		}
		r := p.Stop(time.Second, time.Second)
		if !slices.Contains(r.Leftover, info.Sleeper) || running(info.Sleeper) {
			t.Errorf("Stop() = %+v: want the sleeper %d swept", r, info.Sleeper)
		}
	})
	t.Run("sigkill", func(t *testing.T) {
		p := start(t, "stubborn", launch.Spec{})
		waitFrame(t, p, "ready")
		var sent []string
		within(t, "Terminate", func() { sent = p.Terminate(200 * time.Millisecond) })
		if !slices.Equal(sent, []string{"SIGTERM", "SIGKILL"}) || p.ExitStatus() != "signal: killed" {
			t.Errorf("Terminate() = %v, status %q; want [SIGTERM SIGKILL] and signal: killed", sent, p.ExitStatus())
		}
	})
}
