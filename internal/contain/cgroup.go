package contain

import (
	"errors"
	"os"
	"strconv"
	"sync"
	"time"
)

// cgroupWait bounds the wait for a killed leaf to empty, in Kill and
// Remove.
const cgroupWait = 2 * time.Second

// A Cgroup is the cgroup v2 leaf a wrapped server starts in (Linux, where
// the harness may make one: root, or a delegated subtree). It is made next
// to the harness's own cgroup, as a child of it, named
// "sealmark-<pid>-<start>-<n>" after the harness's pid and start time, and
// the shim is spawned straight into it (launch.Spec.CgroupFD), so the
// server and everything it forks, daemons in sessions of their own
// included, are its members. The harness only ever kills, empties and
// removes leaves it made itself (or, in SweepStale, leaves named after a
// harness that is gone). A nil *Cgroup (the layer does not apply) is valid:
// it has no members and Kill and Remove do nothing.
type Cgroup struct {
	path string   // the leaf's directory in the cgroup v2 hierarchy
	dir  *os.File // the open directory, for CLONE_INTO_CGROUP; nil for a swept leaf

	v1 []string // groups in cgroup v1 hierarchies the shim joins, for limits v2 does not offer here

	cpuWhy error // why the CPU limit asked for does not apply; nil when it does or none was asked

	once    sync.Once
	killed  []int
	removed error
	mu      sync.Mutex // guards undo
	undo    func()     // drops the signal-path removal registered at creation
}

// Path returns the leaf's directory, "" for a nil Cgroup.
func (c *Cgroup) Path() string {
	if c == nil {
		return ""
	}
	return c.path
}

// Members returns the pids in the leaf (its cgroup.procs), as seen from
// the harness's pid namespace: the server, the shims and everything they
// forked that is still running, wherever it moved its session or process
// group. The process observer counts them as the server's.
func (c *Cgroup) Members() ([]int, error) {
	if c == nil {
		return nil, nil
	}
	return readProcs(c.path)
}

// Kill sends SIGKILL to every member at once (cgroup.kill; where the
// kernel lacks it, to each pid in cgroup.procs until none is left) and
// waits, at most 2 s, until the leaf reports it is empty.
func (c *Cgroup) Kill() error {
	if c == nil {
		return nil
	}
	return killCgroup(c.path, time.Now().Add(cgroupWait))
}

// Remove kills what is left in the leaf, waits (at most 2 s) for it to
// empty, and removes it. It returns the pids that were still members when
// it was called: processes that outlived the server's stop. It does its
// work once; later calls return the first result. Call it on every path
// that ends a server started in the leaf (after launch's Stop), and on a
// start that failed (Handoff.Cancel does).
func (c *Cgroup) Remove() ([]int, error) {
	if c == nil {
		return nil, nil
	}
	c.once.Do(func() {
		deadline := time.Now().Add(cgroupWait)
		c.killed, c.removed = removeCgroup(c.path, deadline)
		if err := removeV1Groups(c.v1, deadline); err != nil && c.removed == nil {
			c.removed = err
		}
		if c.dir != nil {
			c.dir.Close()
		}
		c.mu.Lock()
		undo := c.undo
		c.mu.Unlock()
		if undo != nil {
			undo()
		}
	})
	return c.killed, c.removed
}

// fd is the descriptor launch.Spec.CgroupFD takes.
func (c *Cgroup) fd() int {
	if c == nil || c.dir == nil {
		return 0
	}
	return int(c.dir.Fd())
}

// cgroupLimits are the limits a leaf gets where its controllers are
// offered.
type cgroupLimits struct {
	Pids   int   // pids.max; 0 leaves it
	Memory int64 // memory.max in bytes; 0 leaves it
	// CPUPercent is cpu.max as a percentage of one CPU (limitCPU); 0
	// leaves it. It is no part of set and missing: the isolation line
	// does not name it.
	CPUPercent int
}

// missing names the limits asked for that controllers (the leaf's
// cgroup.controllers) cannot enforce.
func (l cgroupLimits) missing(controllers []string) []string {
	has := map[string]bool{}
	for _, c := range controllers {
		has[c] = true
	}
	var out []string
	if l.Pids > 0 && !has["pids"] {
		out = append(out, "pids.max")
	}
	if l.Memory > 0 && !has["memory"] {
		out = append(out, "memory.max")
	}
	return out
}

// value is the limit for controller ("pids" or "memory") as its interface
// files take it, "" when none is asked for.
func (l cgroupLimits) value(controller string) string {
	switch {
	case controller == "pids" && l.Pids > 0:
		return strconv.Itoa(l.Pids)
	case controller == "memory" && l.Memory > 0:
		return strconv.FormatInt(l.Memory, 10)
	}
	return ""
}

// Hits counts how often a server met its limits.
type Hits struct {
	ProcsRefused int64 // forks and clones refused at the process limit
	OOMKills     int64 // processes killed for going past the memory limit
}

// CPULimited says why the CPU limit asked for (Options.CPUPercent) does
// not apply to the leaf, nil when it does or none was asked for.
func (c *Cgroup) CPULimited() error {
	if c == nil {
		return errors.New("no cgroup leaf")
	}
	return c.cpuWhy
}

// joins are the v1 groups the shim must join, nil for a nil Cgroup.
func (c *Cgroup) joins() []string {
	if c == nil {
		return nil
	}
	return c.v1
}

// Hits reads the leaf's (and its v1 groups') counters: zero for a nil
// Cgroup or a limit that is not set.
func (c *Cgroup) Hits() Hits {
	if c == nil {
		return Hits{}
	}
	return cgroupHits(c.path, c.v1)
}

// set names the limits asked for that controllers can enforce.
func (l cgroupLimits) set(controllers []string) []string {
	miss := map[string]bool{}
	for _, m := range l.missing(controllers) {
		miss[m] = true
	}
	var out []string
	if l.Pids > 0 && !miss["pids.max"] {
		out = append(out, "pids.max")
	}
	if l.Memory > 0 && !miss["memory.max"] {
		out = append(out, "memory.max")
	}
	return out
}
