package contain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCPULimit: a leaf asked for 5% of a CPU carries it, in the leaf's own
// cpu.max or in a cgroup v1 cpu group the shim joins, and Remove removes
// that group with the leaf.
func TestCPULimit(t *testing.T) {
	if err := CPULimitOffered(); err != nil {
		t.Skipf("no CPU limit for a leaf here: %v", err)
	}
	c, err := newCgroup(cgroupLimits{CPUPercent: 5}, true)
	require.NoError(t, err)
	defer c.Remove()
	require.NoError(t, c.CPULimited())
	if b, err := os.ReadFile(filepath.Join(c.path, "cpu.max")); err == nil {
		assert.Equal(t, "5000 100000", strings.TrimSpace(string(b)))
		assert.Empty(t, c.joins(), "cpu.max on the leaf: no v1 group to join")
	} else {
		require.Len(t, c.joins(), 1, "the v1 cpu group the shim joins")
		b, err := os.ReadFile(filepath.Join(c.joins()[0], "cpu.cfs_quota_us"))
		require.NoError(t, err)
		assert.Equal(t, "5000", strings.TrimSpace(string(b)))
	}
	groups := c.joins()
	_, err = c.Remove()
	require.NoError(t, err)
	for _, g := range groups {
		assert.NoDirExists(t, g)
	}
}

// TestNoCPULimitAskedNoGroup: a leaf asked for no CPU limit makes no cpu
// group and says nothing is wrong.
func TestNoCPULimitAskedNoGroup(t *testing.T) {
	c, err := newCgroup(cgroupLimits{}, true)
	if err != nil {
		t.Skipf("no cgroup leaf here: %v", err)
	}
	defer c.Remove()
	assert.NoError(t, c.CPULimited())
	for _, g := range c.joins() {
		assert.NotContains(t, g, "/cpu/")
	}
}
