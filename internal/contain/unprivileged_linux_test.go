package contain_test

import (
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/asnobody"
)

// TestUnprivileged runs the layer tests again as uid 65534, as a harness
// run by a normal user would: user namespaces instead of root's pid
// namespace, no cgroup leaf, Landlock and rlimits as before.
func TestUnprivileged(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the layer tests again as uid 65534")
	}
	asnobody.Rerun(t, "^(TestProbe|TestWrapRunsExactly|TestLandlock.*|TestFileSizeCap|TestNetNS.*|TestPdeathsig.*|TestSweepStale|TestShimFailsClosed|TestEgress.*|TestChangesRecorded|TestCgroup.*|TestSecrets.*|TestPlanSecrets)$", time.Minute)
}
