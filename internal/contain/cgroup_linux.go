package contain

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/cleanup"
)

// cgroupMounts are where a cgroup v2 hierarchy is looked for: the whole of
// /sys/fs/cgroup on a pure v2 host, its "unified" directory on a hybrid
// one. Which is v2 is decided by the file system's magic, not the name.
var cgroupMounts = []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}

// Bounds of what is read of cgroup and proc files.
const (
	maxCgroupFile = 64 << 10 // /proc/self/cgroup, cgroup.controllers, cgroup.events
	maxProcsFile  = 1 << 20  // cgroup.procs
)

// leafSeq numbers the leaves this process makes.
var leafSeq atomic.Uint64

// cgroupHome returns the directory of the harness's own cgroup v2: the
// "0::" line of /proc/self/cgroup beneath the v2 mount.
func cgroupHome() (string, error) {
	mount := ""
	for _, m := range cgroupMounts {
		var st unix.Statfs_t
		if unix.Statfs(m, &st) == nil && st.Type == unix.CGROUP2_SUPER_MAGIC {
			mount = m
			break
		}
	}
	if mount == "" {
		return "", errors.New("no cgroup v2 hierarchy at " + strings.Join(cgroupMounts, " or "))
	}
	own, err := ownCgroup("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	return filepath.Join(mount, own), nil
}

// ownCgroup returns the v2 path in a /proc/PID/cgroup file.
func ownCgroup(file string) (string, error) {
	b, err := readBounded(file, maxCgroupFile)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		p, ok := strings.CutPrefix(line, "0::")
		if !ok {
			continue
		}
		if !strings.HasPrefix(p, "/") || strings.HasSuffix(p, " (deleted)") || filepath.Clean(p) != p {
			return "", fmt.Errorf("%s: unusable cgroup v2 path %q", file, p)
		}
		return p, nil
	}
	return "", fmt.Errorf("%s: no cgroup v2 (0::) line", file)
}

// leafName is "sealmark-<pid>-<start>-<n>".
func leafName(pid int, start uint64, n uint64) string {
	return fmt.Sprintf("sealmark-%d-%d-%d", pid, start, n)
}

// parseLeafName returns the harness a leaf's name names, ok false for any
// name newLeaf does not make.
func parseLeafName(name string) (o owner, ok bool) {
	rest, found := strings.CutPrefix(name, "sealmark-")
	f := strings.Split(rest, "-")
	if !found || len(f) != 3 {
		return o, false
	}
	var nums [3]uint64
	for i, s := range f {
		n, err := strconv.ParseUint(s, 10, 63)
		if err != nil || strconv.FormatUint(n, 10) != s {
			return o, false
		}
		nums[i] = n
	}
	if nums[0] == 0 || nums[0] > 1<<22 {
		return o, false
	}
	return owner{Pid: int(nums[0]), Start: nums[1]}, true
}

// newCgroup makes a leaf beneath the harness's own cgroup, opens it and
// sets the limits its controllers allow (Isolation.For says which).
func newCgroup(l cgroupLimits, v1 bool) (c *Cgroup, err error) {
	err = making(func() error {
		c, err = makeCgroup(l, v1)
		return err
	})
	return c, err
}

// makeCgroup is newCgroup, inside making: whatever it made is removed
// before it returns an error, and the leaf's removal is registered with
// package cleanup last, once the leaf and its v1 groups all exist.
func makeCgroup(l cgroupLimits, v1 bool) (*Cgroup, error) {
	home, err := cgroupHome()
	if err != nil {
		return nil, err
	}
	start, _ := processStart(os.Getpid())
	path := filepath.Join(home, leafName(os.Getpid(), start, leafSeq.Add(1)))
	if err := os.Mkdir(path, 0o755); err != nil {
		return nil, err
	}
	c := &Cgroup{path: path}
	if c.dir, err = os.Open(path); err != nil {
		_ = unix.Rmdir(path)
		return nil, err
	}
	controllers, err := leafControllers(path)
	for _, lim := range l.set(controllers) {
		if err != nil {
			break
		}
		if lim == "pids.max" {
			err = writeCgroup(path, lim, l.value("pids"))
		} else {
			err = writeCgroup(path, lim, l.value("memory"))
		}
	}
	if err == nil && v1 {
		c.v1, err = newV1Groups(filepath.Base(path), l, controllers)
	}
	if err == nil && l.CPUPercent > 0 {
		c.cpuWhy = limitCPU(c, home, l.CPUPercent, v1)
	}
	if err != nil {
		c.Remove()
		return nil, err
	}
	// A signal's cleanup from now on kills and removes it, not the next
	// run's sweep; once the harness is on its way out (cleanup.Exit ran,
	// waiting in making's gate for this) that happens here, at once.
	var removed atomic.Bool
	undo := cleanup.Add(func() {
		removed.Store(true)
		_, _ = c.Remove()
	})
	c.mu.Lock()
	c.undo = undo
	c.mu.Unlock()
	if removed.Load() {
		return nil, errExiting
	}
	return c, nil
}

// errExiting is the error of a cgroup asked for once the harness is on its
// way out.
var errExiting = errors.New("the harness is exiting: no cgroup is made")

// Making cgroups and a signal's cleanup exclude each other: makingMu is
// held while a cgroup of this process is made (and, by a probe, removed
// again), and the cleanup of a signal waits for it, then closes the way
// (exiting), so no cgroup is made after the cleanup ran and none is left
// half made when the harness exits.
var (
	makingMu sync.Mutex
	exiting  bool
)

// making runs make under makingMu, with a gate registered with package
// cleanup for as long: a signal's cleanup (cleanup.Run or Exit) that comes
// meanwhile waits in the gate until make is done, having registered the
// removal of what it made (which Exit then runs at once), and no later
// make runs.
func making(make func() error) error {
	undo := cleanup.Add(func() {
		makingMu.Lock()
		exiting = true
		makingMu.Unlock()
	})
	defer undo()
	makingMu.Lock()
	defer makingMu.Unlock()
	if exiting {
		return errExiting
	}
	return make()
}

// leafControllers reads a cgroup's cgroup.controllers.
func leafControllers(path string) ([]string, error) {
	b, err := readBounded(filepath.Join(path, "cgroup.controllers"), maxCgroupFile)
	return strings.Fields(string(b)), err
}

// writeCgroup writes val to an existing interface file of the cgroup.
func writeCgroup(path, file, val string) error {
	f, err := os.OpenFile(filepath.Join(path, file), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(val)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s to %s/%s: %w", val, path, file, err)
	}
	return nil
}

// readProcs returns the pids in a cgroup's cgroup.procs.
func readProcs(path string) ([]int, error) {
	b, err := readBounded(filepath.Join(path, "cgroup.procs"), maxProcsFile)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// killCgroup kills every process in the cgroup and waits until it is
// empty or the deadline passed.
func killCgroup(path string, deadline time.Time) error {
	err := writeCgroup(path, "cgroup.kill", "1")
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(path); serr != nil {
			return serr // the cgroup itself is gone
		}
		return killEach(path, deadline) // a kernel before 5.14
	}
	if err != nil {
		return err
	}
	return waitEmpty(path, deadline)
}

// killEach sends SIGKILL to each member, again until none is left: a
// member may fork between the listing and the kill.
func killEach(path string, deadline time.Time) error {
	for {
		pids, err := readProcs(path)
		if err != nil {
			return err
		}
		if len(pids) == 0 {
			return waitEmpty(path, deadline)
		}
		for _, pid := range pids {
			if pfd, err := unix.PidfdOpen(pid, 0); err == nil {
				_ = unix.PidfdSendSignal(pfd, unix.SIGKILL, nil, 0)
				unix.Close(pfd)
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: still holds pids %v", path, pids)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitEmpty waits until cgroup.events says "populated 0", woken by the
// kernel's notification on that file (and looking again every 10 ms).
func waitEmpty(path string, deadline time.Time) error {
	f, err := os.Open(filepath.Join(path, "cgroup.events"))
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 256)
	for {
		n, err := f.ReadAt(buf, 0)
		if err != nil && err != io.EOF {
			return err
		}
		if bytes.Contains(buf[:n], []byte("populated 0")) {
			return nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			pids, _ := readProcs(path)
			return fmt.Errorf("%s: not empty after the kill; members %v", path, pids)
		}
		fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLPRI}}
		_, _ = unix.Poll(fds, int(min(left, 10*time.Millisecond).Milliseconds())+1)
	}
}

// removeCgroup kills what is in the cgroup, waits for it to empty and
// removes it, with any cgroups a member made beneath it (deepest first).
// It returns the members it found first.
func removeCgroup(path string, deadline time.Time) ([]int, error) {
	members, err := readProcs(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := killCgroup(path, deadline); err != nil {
		return members, err
	}
	var dirs []string
	_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && len(dirs) < 1024 {
			dirs = append(dirs, p)
		}
		return nil
	})
	sort.Sort(sort.Reverse(sort.StringSlice(dirs))) // children before their parents
	for _, d := range dirs {
		for {
			err := unix.Rmdir(d)
			if err == nil || errors.Is(err, unix.ENOENT) {
				break
			}
			if !errors.Is(err, unix.EBUSY) || time.Now().After(deadline) {
				return members, &fs.PathError{Op: "rmdir", Path: d, Err: err}
			}
			// A process spawned into it after the kill (a start in
			// flight when a signal's cleanup came): kill again.
			_ = writeCgroup(d, "cgroup.kill", "1")
			time.Sleep(time.Millisecond)
		}
	}
	return members, nil
}

// probeCgroup makes a leaf and starts a process straight into it, the way
// Wrap will, and returns the layer and the controllers the leaf offers.
func probeCgroup(exe string) (Layer, []string) {
	c, err := newCgroup(cgroupLimits{}, false)
	if err != nil {
		return refused("cgroup", err.Error()), nil
	}
	defer c.Remove()
	controllers, err := leafControllers(c.path)
	if err != nil {
		return refused("cgroup", err.Error()), nil
	}
	cmd := exec.Command(exe, Verb) // no mode: the shim exits 125 at once
	cmd.Env = []string{}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: c.fd()}
	if err := cmd.Start(); err != nil {
		return refused("cgroup", fmt.Sprintf("starting a process in %s: %v", c.path, err)), nil
	}
	t := time.AfterFunc(probeTimeout, func() { _ = cmd.Process.Kill() })
	_ = cmd.Wait()
	t.Stop()
	detail := "v2-leaf"
	if v1 := v1Offered(controllers); len(v1) > 0 {
		detail += "+v1(" + strings.Join(v1, ",") + ")"
		controllers = append(controllers, v1...)
	}
	return applied("cgroup", detail), controllers
}

// cgroupHits reads a leaf's pids.events and memory.events, and its v1
// groups' counters.
func cgroupHits(path string, v1 []string) Hits {
	h := v1Hits(v1)
	if b, err := readBounded(filepath.Join(path, "pids.events"), maxCgroupFile); err == nil {
		h.ProcsRefused += keyed(b, "max")
	}
	if b, err := readBounded(filepath.Join(path, "memory.events"), maxCgroupFile); err == nil {
		h.OOMKills += keyed(b, "oom_kill")
	}
	return h
}

// sweepCgroups kills and removes the leaves beneath the harness's own
// cgroup that are named after a harness that no longer runs (its pid is
// gone, or belongs to a process with another start time) and belong to the
// calling user. Any other cgroup is left alone.
func sweepCgroups() []string {
	did := sweepV1Groups()
	home, err := cgroupHome()
	if err != nil {
		return did // no cgroup v2 here: no leaves either
	}
	entries, err := os.ReadDir(home)
	if err != nil {
		return append(did, fmt.Sprintf("could not look for stale cgroups in %s: %v", home, err))
	}
	for _, e := range entries {
		o, ok := parseLeafName(e.Name())
		if !ok || !e.IsDir() || o.alive() {
			continue
		}
		path := filepath.Join(home, e.Name())
		if ownedByMe(path, true) != nil {
			continue
		}
		killed, err := removeCgroup(path, time.Now().Add(cgroupWait))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// another sweep got there first
		case err != nil:
			did = append(did, fmt.Sprintf("could not remove stale cgroup %s: %v", path, err))
		default:
			did = append(did, fmt.Sprintf("removed stale cgroup %s (harness pid %d gone; killed pids %v)", path, o.Pid, killed))
		}
	}
	return did
}

// readBounded reads at most max bytes of file.
func readBounded(file string, max int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}
