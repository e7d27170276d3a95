package contain

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// v1Root is where a hybrid host mounts its cgroup v1 hierarchies, one
// directory per controller.
var v1Root = "/sys/fs/cgroup"

// v1Controllers are the controllers whose limits a leaf borrows from a
// cgroup v1 hierarchy when its v2 hierarchy does not offer them (a hybrid
// host binds pids and memory to v1).
var v1Controllers = []string{"pids", "memory"}

// v1Limit is each v1 controller's limit file, standing for v2's.
var v1Limit = map[string]string{"pids": "pids.max", "memory": "memory.limit_in_bytes"}

// v1Home returns the harness's own cgroup directory in the v1 hierarchy of
// controller, or an error when there is none.
func v1Home(controller string) (string, error) {
	mount := filepath.Join(v1Root, controller)
	var st unix.Statfs_t
	if err := unix.Statfs(mount, &st); err != nil {
		return "", err
	}
	if st.Type != unix.CGROUP_SUPER_MAGIC {
		return "", fmt.Errorf("%s is not a cgroup v1 hierarchy", mount)
	}
	b, err := readBounded("/proc/self/cgroup", maxCgroupFile)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || !hasController(f[1], controller) {
			continue
		}
		p := f[2]
		if !strings.HasPrefix(p, "/") || filepath.Clean(p) != p {
			return "", fmt.Errorf("/proc/self/cgroup: unusable %s path %q", controller, p)
		}
		return filepath.Join(mount, p), nil
	}
	return "", fmt.Errorf("/proc/self/cgroup: no %s line", controller)
}

func hasController(list, controller string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == controller {
			return true
		}
	}
	return false
}

// newV1Groups makes, for each limit l asks for that the v2 controllers
// lack, a group named name in that controller's v1 hierarchy and writes
// the limit. It returns the groups made; on error it removes them.
func newV1Groups(name string, l cgroupLimits, v2 []string) ([]string, error) {
	var made []string
	for _, ctrl := range v1Controllers {
		val := l.value(ctrl)
		if val == "" || hasController(strings.Join(v2, ","), ctrl) {
			continue
		}
		home, err := v1Home(ctrl)
		if err != nil {
			removeV1Groups(made, time.Now().Add(cgroupWait))
			return nil, err
		}
		dir := filepath.Join(home, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			removeV1Groups(made, time.Now().Add(cgroupWait))
			return nil, err
		}
		made = append(made, dir)
		if err := writeCgroup(dir, v1Limit[ctrl], val); err != nil {
			removeV1Groups(made, time.Now().Add(cgroupWait))
			return nil, err
		}
	}
	return made, nil
}

// v1Offered lists the v1 controllers a leaf may borrow here: those whose
// hierarchy lets this harness make (and remove) a group.
func v1Offered(v2 []string) []string {
	var out []string
	for _, ctrl := range v1Controllers {
		if hasController(strings.Join(v2, ","), ctrl) {
			continue
		}
		home, err := v1Home(ctrl)
		if err != nil {
			continue
		}
		dir := filepath.Join(home, leafName(os.Getpid(), 0, leafSeq.Add(1)))
		_ = making(func() error { // never left made by a signal meanwhile
			if err := os.Mkdir(dir, 0o755); err != nil {
				return err
			}
			err := unix.Rmdir(dir)
			if err == nil {
				out = append(out, ctrl)
			}
			return err
		})
	}
	return out
}

// joinV1 moves the calling process into each group: its children are
// members from birth. The shim calls it before anything else.
func joinV1(groups []string) error {
	for _, g := range groups {
		if err := writeCgroup(g, "cgroup.procs", "0"); err != nil {
			return err
		}
	}
	return nil
}

// removeV1Groups removes groups, waiting (until deadline) for their
// members, all killed through the v2 leaf, to be gone; a member still
// there (one that joined after the kill: a shim started meanwhile) is
// killed again.
func removeV1Groups(groups []string, deadline time.Time) error {
	var errs []error
	for _, g := range groups {
		for {
			err := unix.Rmdir(g)
			if err == nil || errors.Is(err, unix.ENOENT) {
				break
			}
			if !errors.Is(err, unix.EBUSY) || time.Now().After(deadline) {
				errs = append(errs, fmt.Errorf("removing %s: %w", g, err))
				break
			}
			pids, _ := readProcs(g)
			for _, pid := range pids {
				if pfd, err := unix.PidfdOpen(pid, 0); err == nil {
					_ = unix.PidfdSendSignal(pfd, unix.SIGKILL, nil, 0)
					unix.Close(pfd)
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return errors.Join(errs...)
}

// v1Hits reads how often the groups' limits refused the server: forks
// refused at pids.max (pids.events "max") and processes killed for memory
// (memory.oom_control "oom_kill").
func v1Hits(groups []string) Hits {
	var h Hits
	for _, g := range groups {
		if b, err := readBounded(filepath.Join(g, "pids.events"), maxCgroupFile); err == nil {
			h.ProcsRefused += keyed(b, "max")
		}
		if b, err := readBounded(filepath.Join(g, "memory.oom_control"), maxCgroupFile); err == nil {
			h.OOMKills += keyed(b, "oom_kill")
		}
	}
	return h
}

// keyed returns the number after key in a "key value" per line file.
func keyed(b []byte, key string) int64 {
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// sweepV1Groups removes the v1 groups named after a harness that no longer
// runs, killing what is left in them first.
func sweepV1Groups() []string {
	var did []string
	for _, ctrl := range v1Swept() {
		home, err := v1Home(ctrl)
		if err != nil {
			continue
		}
		entries, err := os.ReadDir(home)
		if err != nil {
			continue
		}
		for _, e := range entries {
			o, ok := parseLeafName(e.Name())
			if !ok || !e.IsDir() || o.alive() {
				continue
			}
			dir := filepath.Join(home, e.Name())
			if ownedByMe(dir, true) != nil {
				continue
			}
			pids, _ := readProcs(dir)
			for _, pid := range pids {
				_ = unix.Kill(pid, unix.SIGKILL)
			}
			if err := removeV1Groups([]string{dir}, time.Now().Add(cgroupWait)); err != nil {
				did = append(did, fmt.Sprintf("could not remove stale cgroup %s: %v", dir, err))
				continue
			}
			did = append(did, fmt.Sprintf("removed stale cgroup %s (harness pid %d gone; killed pids %v)", dir, o.Pid, pids))
		}
	}
	return did
}
