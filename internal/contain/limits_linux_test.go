package contain_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
)

// needLimits skips unless the cgroup layer here can enforce both limits
// (a v2 leaf with the controllers, or v1 groups on a hybrid host).
func needLimits(t *testing.T) {
	t.Helper()
	needLayer(t, "cgroup")
	iso := contain.Probe().For(contain.Options{Cgroup: true, MaxProcs: 1, MaxMemory: 1})
	for _, l := range []string{"pids.max", "memory.max"} {
		if !iso.Enforces(l) {
			t.Skipf("the leaf here sets no %s (controllers %v): %s", l, iso.CgroupControllers, iso.Line())
		}
	}
}

// TestProcessLimit: a server that starts 200 processes under a limit of
// 64 tasks is refused part of them, and the leaf counts the refusals;
// without a limit every one starts and nothing is counted.
func TestProcessLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 200 processes under a limit of 64 tasks")
	}
	needLimits(t)
	noLeafLeft(t)
	for _, limit := range []int{64, 0} {
		t.Run("max="+strconv.Itoa(limit), func(t *testing.T) {
			proc, cg := startInLeaf(t, childSpec(t, "spawn", "200"), contain.Options{NetNS: true, MaxProcs: limit})
			r := readResult(t, proc)
			started := int(r["started"].(float64))
			hits := cg.Hits()
			if limit > 0 {
				assert.Less(t, started, 200, "some forks refused")
				assert.Contains(t, r.str("err"), "resource temporarily unavailable")
				assert.Positive(t, hits.ProcsRefused, "the refusals are counted")
			} else {
				assert.Equal(t, 200, started)
				assert.Zero(t, hits.ProcsRefused)
			}
			assert.Zero(t, hits.OOMKills)
		})
	}
}

// TestMemoryLimit: a server touching 256 MiB under a 64 MiB limit is
// killed, and the kill is counted; under no limit it finishes.
func TestMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 256 MiB touched under a 64 MiB limit")
	}
	needLimits(t)
	noLeafLeft(t)
	for _, limit := range []int64{64 << 20, 0} {
		t.Run("max="+strconv.FormatInt(limit>>20, 10)+"MiB", func(t *testing.T) {
			proc, cg := startInLeaf(t, childSpec(t, "eat", "256"), contain.Options{NetNS: true, MaxMemory: limit})
			exited := proc.WaitExit(30e9)
			require.True(t, exited, "the eater ends either way")
			hits := cg.Hits()
			if limit > 0 {
				assert.Equal(t, "exit status 137", proc.ExitStatus(), "killed (the shims pass SIGKILL on as 128+9)")
				assert.Positive(t, hits.OOMKills)
			} else {
				r := readResult(t, proc)
				assert.Equal(t, 256.0, r["mib"])
				assert.Zero(t, hits.OOMKills)
			}
			assert.Zero(t, hits.ProcsRefused)
		})
	}
}
