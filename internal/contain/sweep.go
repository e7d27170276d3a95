package contain

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/quota"
)

// SweepStale cleans up after harness runs that died without cleaning up
// (a SIGKILL, a crash, a power cut): it removes the quota probe
// directories of harnesses that are gone (only a kernel without fsopen
// makes them), and among parent's other "sealmark-*" directories it picks
// those whose OwnerFile names a process that no longer exists, kills every process whose environment carries one of
// those runs' markers (Linux), then removes the directories. A directory
// without a valid owner file of the calling user is left alone: another
// run may be between making it and WriteOwner, and a directory in a shared
// temp directory may belong to someone else. Marked processes of a run
// whose directory is already gone are not found. On Linux it also kills
// and removes the cgroup leaves (see Cgroup) beneath the harness's own
// cgroup whose names carry the pid and start time of a harness of the
// calling user that no longer runs. It returns one line per thing it did
// or failed to do, for the run's log.
func SweepStale(parent string) []string {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return []string{fmt.Sprintf("sweep %s: %v", parent, err)}
	}
	var stale []string
	owners := map[string]owner{}
	runs := map[string]bool{}
	var did []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "sealmark-") {
			continue
		}
		if staleQuotaProbe(e) {
			dir := filepath.Join(parent, e.Name())
			if err := errors.Join(quota.Unmount(dir), os.Remove(dir)); err != nil {
				did = append(did, fmt.Sprintf("could not remove stale quota probe %s: %v", dir, err))
			} else {
				did = append(did, "removed stale quota probe "+dir)
			}
			continue
		}
		top := filepath.Join(parent, e.Name())
		o, err := readOwner(top)
		if err != nil || o.alive() {
			continue
		}
		stale = append(stale, top)
		owners[top] = o
		if o.Run != "" {
			runs[o.Run] = true
		}
	}
	sort.Strings(stale)
	did = append(did, sweepCgroups()...)
	if len(runs) > 0 {
		did = append(did, killMarked(runs)...)
	}
	for _, top := range stale {
		o := owners[top]
		if err := removeAll(top); err != nil {
			did = append(did, fmt.Sprintf("could not remove stale sandbox %s: %v", top, err))
			continue
		}
		did = append(did, fmt.Sprintf("removed stale sandbox %s (run %q, harness pid %d gone)", top, o.Run, o.Pid))
	}
	return did
}

// removeAll removes dir, first making every directory in it writable and
// searchable if a plain RemoveAll fails (a server may leave 0500 dirs).
// Links are removed, never followed. A quota filesystem on dir (a
// sandbox's size limit) is unmounted first, which takes its files.
func removeAll(dir string) error {
	if err := quota.Unmount(dir); err != nil {
		return err
	}
	if os.RemoveAll(dir) == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(path, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// quotaProbePrefix begins the name of the directory a quota probe mounts
// its tmpfs on, where the kernel has no fsopen (probeQuotaDir); the name
// goes on with the harness's pid and start time.
const quotaProbePrefix = "sealmark-quota-probe-"

// quotaProbeAge is how old a quota probe's directory whose name does not
// say its harness must be before it is taken for stale.
const quotaProbeAge = 10 * time.Minute

// staleQuotaProbe reports whether e is a quota probe's directory whose
// harness is gone: named after a harness that no longer runs, or, named
// the way earlier versions did (a bare random number), older than
// quotaProbeAge.
func staleQuotaProbe(e fs.DirEntry) bool {
	rest, ok := strings.CutPrefix(e.Name(), quotaProbePrefix)
	if !ok || !e.IsDir() {
		return false
	}
	f := strings.Split(rest, "-")
	switch len(f) {
	case 1:
		fi, err := e.Info()
		return err == nil && time.Since(fi.ModTime()) > quotaProbeAge
	case 3:
		pid, err1 := strconv.Atoi(f[0])
		start, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil || pid <= 0 {
			return false
		}
		return !owner{Pid: pid, Start: start}.alive()
	}
	return false
}
