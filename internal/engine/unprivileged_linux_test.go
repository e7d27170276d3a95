package engine_test

import (
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/asnobody"
)

// TestHostileUnprivileged runs the hostile-server tests again as uid 65534,
// as a harness started by a normal user would run: user namespaces in
// place of root's, Landlock, seccomp and rlimits as before, no cgroup.
func TestHostileUnprivileged(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	asnobody.Rerun(t, "^TestHostileServer(IsContained|Uncontained)$", 3*time.Minute)
}
