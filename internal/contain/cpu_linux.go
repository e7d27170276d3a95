package contain

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// cpuPeriod is the period, in microseconds, of a leaf's CPU limit: the
// kernel's default for both cpu.max and cpu.cfs_period_us.
const cpuPeriod = 100000

// limitCPU limits the leaf at path to percent of one CPU, in the leaf
// itself where it can: cpu.max when the leaf's controllers have cpu, or
// once the harness's own cgroup (home) could enable it for its children.
// Otherwise, when a shim runs to join it (v1), in a group of the same name
// in cgroup v1's cpu hierarchy, added to c.v1 so that the shim joins it
// and Remove removes it. The leaf's members are the server's whole tree,
// the shims included, as on a loaded machine. It returns why no limit
// applies, nil when one does.
func limitCPU(c *Cgroup, home string, percent int, v1 bool) error {
	quota := percent * cpuPeriod / 100
	controllers, _ := leafControllers(c.path)
	if !slices.Contains(controllers, "cpu") {
		offered, _ := leafControllers(home)
		if slices.Contains(offered, "cpu") {
			// Refused (EBUSY) where home holds processes and is not the
			// root: the kernel's no-internal-process rule.
			_ = writeCgroup(home, "cgroup.subtree_control", "+cpu")
			controllers, _ = leafControllers(c.path)
		}
	}
	if slices.Contains(controllers, "cpu") {
		return writeCgroup(c.path, "cpu.max", fmt.Sprintf("%d %d", quota, cpuPeriod))
	}
	why := "the cgroup v2 leaf has no cpu controller (" + orNone(controllers) + ")"
	if !v1 {
		return errors.New(why + ", and no shim runs to join a cgroup v1 cpu group")
	}
	g, err := v1Home("cpu")
	if err != nil {
		return fmt.Errorf("%s, and no cgroup v1 cpu hierarchy: %v", why, err)
	}
	g = filepath.Join(g, filepath.Base(c.path))
	if err := os.Mkdir(g, 0o755); err != nil {
		return fmt.Errorf("%s; cgroup v1 cpu: %v", why, err)
	}
	if err := errors.Join(writeCgroup(g, "cpu.cfs_period_us", strconv.Itoa(cpuPeriod)),
		writeCgroup(g, "cpu.cfs_quota_us", strconv.Itoa(quota))); err != nil {
		_ = os.Remove(g)
		return fmt.Errorf("%s; cgroup v1 cpu: %v", why, err)
	}
	c.v1 = append(c.v1, g)
	return nil
}

// v1Swept are the cgroup v1 hierarchies whose groups SweepStale removes:
// the limits' and the CPU limit's.
func v1Swept() []string { return append(slices.Clone(v1Controllers), "cpu") }

// CPULimitOffered says whether a server's leaf here can carry a CPU limit
// (Options.CPUPercent), and why not: it makes a leaf with one, the way
// WrapEgress would with a shim, and removes it.
func CPULimitOffered() error {
	c, err := newCgroup(cgroupLimits{CPUPercent: 50}, true)
	if err != nil {
		return fmt.Errorf("no cgroup leaf: %w", err)
	}
	defer c.Remove()
	if c.cpuWhy != nil {
		return c.cpuWhy
	}
	return nil
}
