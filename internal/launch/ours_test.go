package launch_test

import (
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/launch"
)

// TestOursUntilReaped: a started process is known as the harness's own
// until it is reaped, so observers never take it for an adopted orphan.
func TestOursUntilReaped(t *testing.T) {
	p := start(t, "echo", launch.Spec{})
	if !launch.Ours(p.Pid()) {
		t.Fatalf("pid %d: Ours = false while it runs", p.Pid())
	}
	p.Stop(time.Second, time.Second)
	if launch.Ours(p.Pid()) {
		t.Errorf("pid %d: Ours = true after it was reaped", p.Pid())
	}
}
