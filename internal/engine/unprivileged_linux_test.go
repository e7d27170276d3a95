package engine_test

import (
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/asnobody"
)

// TestHostileUnprivileged runs the hostile-server, ways-out and host-socket
// tests again as uid 65534,
// as a harness started by a normal user would run: user namespaces in
// place of root's, Landlock, seccomp and rlimits as before, no cgroup.
func TestHostileUnprivileged(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	asnobody.Rerun(t, "^(TestHostileServer(IsContained|Uncontained)|TestWaysOut(Contained|Uncontained)|TestHostUnixSocket(Refused|Declared))$", 3*time.Minute)
}
