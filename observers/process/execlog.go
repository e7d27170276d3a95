package process

import (
	"os"
	"path/filepath"
	"time"

	"github.com/sealmark/sealmark/internal/smbin"
)

// execLogEvery is how often a sampler tick may re-read a changed exec log;
// Begin, Collect, Sweep and Close always do.
const execLogEvery = 200 * time.Millisecond

// execFollower turns new lines of the sandbox's exec log into records.
type execFollower struct {
	bin     string
	size    int64
	mod     time.Time
	read    time.Time // when the log was last read
	entries int       // entries already recorded
	skipped int       // malformed lines already reported
}

// follow records the exec log's new entries. o.mu is held.
func (f *execFollower) follow(o *Observer, force bool) {
	if f.bin == "" {
		return
	}
	now := time.Now()
	fi, err := os.Lstat(filepath.Join(f.bin, smbin.ExecLog))
	if err != nil {
		return // nothing ran yet
	}
	if fi.Size() == f.size && fi.ModTime().Equal(f.mod) {
		return
	}
	if !force && now.Sub(f.read) < execLogEvery {
		return
	}
	execs, skipped, err := smbin.ReadExecLog(f.bin)
	f.read = now
	if err != nil {
		o.lossOnce("exec-log-error", "sm-* executions are not observed: %v", err)
		return
	}
	f.size, f.mod = fi.Size(), fi.ModTime()
	if fi.Size() > smbin.MaxExecLog {
		o.lossOnce("exec-log-size", "the exec log is over %d bytes; sm-* executions past that are not observed", smbin.MaxExecLog)
	}
	if len(execs) < f.entries {
		o.lossf("the exec log shrank from %d to %d entries: something rewrote it, and sm-* executions may be missing", f.entries, len(execs))
		f.entries = 0
	}
	for _, e := range execs[f.entries:] {
		o.execLine(e, now)
	}
	f.entries = len(execs)
	if skipped > f.skipped {
		o.lossf("the exec log holds %d malformed lines (a server can write into bin); they were skipped", skipped-f.skipped)
		f.skipped = skipped
	}
}
