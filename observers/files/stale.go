package files

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// barrierPrefix names an Observer's barrier directory in the temp
// directory: sealmark-files-<pid>-<random>. Close removes it; a harness
// that was killed cannot, and SweepStale removes it later.
const barrierPrefix = "sealmark-files-"

func sweepStale(dir string, uid int, dead func(pid int) bool) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), barrierPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || !dead(pid) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		info, err := os.Lstat(path)
		if err != nil || !ownedBy(info, uid) {
			continue
		}
		if os.RemoveAll(path) == nil {
			removed = append(removed, path)
		}
	}
	return removed
}
