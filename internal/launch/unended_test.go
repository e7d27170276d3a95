package launch_test

import (
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/launch"
)

// TestUnendedCountsTheLineWithoutANewline: Unended is the length of the
// stdout line the server is in the middle of, 0 once a newline ends it, and
// after stdout closes the length of a last line that never ended.
func TestUnendedCountsTheLineWithoutANewline(t *testing.T) {
	p := start(t, "unended", launch.Spec{})
	readMessages(p) // the JSON line is delivered, so the framer reads on
	waitUnended(t, p, 3000)
	if _, err := p.Input().Write([]byte("next\n")); err != nil {
		t.Fatal(err)
	}
	waitUnended(t, p, 10)
	if err := p.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the child did not exit within 10s of stdin closing")
	}
	p.Stop(0, 0) // drains stdout: the framer has seen its end
	if got := p.Unended(); got != 10 {
		t.Errorf("after exit Unended() = %d, want 10: the last line never ended", got)
	}
}

// waitUnended waits, with a deadline a loaded machine meets, for Unended
// to be want.
func waitUnended(t *testing.T, p *launch.Process, want int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for p.Unended() != want {
		if time.Now().After(deadline) {
			t.Fatalf("Unended() = %d after 10s, want %d", p.Unended(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
