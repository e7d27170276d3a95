package files

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sealmark/sealmark/internal/layout"
	"github.com/sealmark/sealmark/observers"
)

// Options configures an Observer. Only Top is required.
type Options struct {
	// Top is the sandbox top directory (<tmp>/sealmark-x). Nothing outside
	// it is read.
	Top string
	// Dirs are the directories directly under Top to watch; DefaultDirs
	// when empty. bin is harness-owned and refused.
	Dirs []string
	// HashMax is the size up to which regular files are hashed (content
	// compared); DefaultHashMax when 0, no hashing when negative. Larger
	// files compare by size, mtime and inode.
	HashMax int64
	// MaxEntries bounds the entries held under each watched directory;
	// DefaultMaxEntries when <= 0. Entries beyond it are counted, not
	// held (no lstat, no hash, no memory of their own), and their changes
	// are not reported: a KindLoss record (reason "entries") says so with
	// the count. Each watched directory has a limit of its own, so a
	// flood of files in root never hides a change under root-evil, canary,
	// home or tmp.
	MaxEntries int
	// MaxRecords bounds the change records one Collect returns (and the
	// records held between probes); DefaultMaxRecords when <= 0. The rest
	// are counted in a loss record.
	MaxRecords int
}

// Observer reports the changes under the sandbox's watched directories,
// attributed to probes. It is safe for concurrent use.
//
// Attribution: Collect(token) returns the changes made since the previous
// Begin or Collect, with Token set to token. Begin first takes the changes
// made while no probe was open (after the previous Collect); they carry no
// token and are returned, with the loss records of New, by the next Collect
// or by Close.
type Observer struct {
	abandoned  atomic.Bool   // Abandon was called: no look from now on
	stopWait   chan struct{} // closed by Abandon: a wait for file events ends
	abandonOne sync.Once
	mu         sync.Mutex
	t          *tree
	ev         *events // nil: no file events, every update is a full walk
	maxRecords int
	pending    []observers.Record // records with no token, not yet returned
	overflow   int                // records with no token dropped for the bound
	closed     bool
	now        func() time.Time
}

var (
	_ observers.Observer  = (*Observer)(nil)
	_ observers.Abandoner = (*Observer)(nil)
)

// New takes the first snapshot of the watched directories and starts the
// file events (best effort: without them every Collect walks the whole
// sandbox, which the first Collect reports in a loss record).
func New(o Options) (*Observer, error) {
	if o.Top == "" {
		return nil, errors.New("files: Options.Top is empty")
	}
	top, err := filepath.Abs(o.Top)
	if err != nil {
		return nil, fmt.Errorf("files: %w", err)
	}
	dirs, err := cleanDirs(o.Dirs)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(top)
	if err != nil {
		return nil, fmt.Errorf("files: %w", err)
	}
	maxEntries := o.MaxEntries
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	obs := &Observer{
		t:          newTree(root, dirs, normHashMax(o.HashMax), maxEntries),
		maxRecords: o.MaxRecords,
		now:        time.Now,
		stopWait:   make(chan struct{}),
	}
	obs.t.stop = &obs.abandoned
	if obs.maxRecords <= 0 {
		obs.maxRecords = DefaultMaxRecords
	}
	now := obs.now()
	ev, err := startEvents(top, dirs)
	if err != nil {
		obs.hold(loss("", now, "unavailable", fmt.Sprintf("file events unavailable (%v): every Collect walks the whole sandbox", err)))
	} else {
		obs.ev, obs.t.watch = ev, ev
	}
	obs.t.wasUnreadable = map[string]string{}
	obs.t.walk() // the baseline: no changes, only losses
	if obs.t.watchErr != nil {
		obs.hold(obs.degrade("")...)
	}
	obs.hold(obs.losses("", now)...)
	return obs, nil
}

// Name returns "files".
func (o *Observer) Name() string { return "files" }

// Begin marks the start of the probe with this token. Changes made since
// the previous Collect are set aside with no token.
func (o *Observer) Begin(token string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || o.abandoned.Load() {
		return
	}
	o.hold(o.sweep("")...)
}

// Collect returns the changes made since the previous Begin or Collect,
// attributed to token, after the records with no token set aside before.
func (o *Observer) Collect(token string) []observers.Record {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || o.abandoned.Load() {
		return nil
	}
	recs := o.sweep(token)
	return append(o.flush(), recs...)
}

// Allocated returns the bytes the file system gives what the observer
// holds (st_blocks; a hard-linked file once), as of its last Begin or
// Collect: the size observer's estimate between its walks. Entries
// counted past Options.MaxEntries are not in it; the size observer's
// timed walks (or the quota's counters) count them.
func (o *Observer) Allocated() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.t.alloc.total
}

// Close stops the observer and returns what no Collect returned: the
// changes since the last Collect, with no token, and loss records.
func (o *Observer) Close() []observers.Record {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	if !o.abandoned.Load() {
		o.hold(o.sweep("")...)
	}
	o.closed = true
	if o.ev != nil {
		o.ev.close()
		o.ev, o.t.watch = nil, nil
	}
	o.t.top.Close()
	return o.flush()
}

// Abandon cuts short a Begin or Collect in progress, whose walk stops at
// the next directory entry and reports no change (a loss record says it
// was abandoned), and makes every later Begin and Collect return nothing
// and Close take no last look: for a harness ending on a signal, which
// must not spend seconds walking a sandbox it is about to delete. It
// returns at once.
func (o *Observer) Abandon() {
	o.abandoned.Store(true)
	o.abandonOne.Do(func() { close(o.stopWait) })
}

// Snapshot returns a copy of the snapshot as of the last Begin, Collect or
// Close (or New): the state to restore the sandbox to between probes.
func (o *Observer) Snapshot() *Snapshot {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.t.snap.clone()
}

// sweep brings the snapshot up to date and returns the records for what
// changed, with Token token. With events, only the dirty directories are
// read; without them, or when events were lost, the whole sandbox is
// walked, which is exact, and a loss record says so.
func (o *Observer) sweep(token string) []observers.Record {
	now := o.now()
	var recs []observers.Record
	t := o.t
	t.begin()
	if o.ev == nil {
		t.resync()
	} else {
		why := ""
		if err := o.ev.settle(settleTimeout, o.stopWait); errors.Is(err, errAbandoned) {
			return abandonedLoss(token, now)
		} else if errors.Is(err, errStopped) {
			t.watchErr = err // handled below: full walks from now on
		} else if err != nil {
			why = fmt.Sprintf("file events did not settle (%v)", err)
		}
		dirty, full := o.ev.take()
		if full != "" {
			why = full
		}
		switch {
		case t.watchErr != nil:
		case why != "":
			t.resync()
			recs = append(recs, loss(token, now, "fallback", why+": fell back to a full walk"))
		default:
			t.update(dirty)
			if t.raced {
				t.resync()
				recs = append(recs, loss(token, now, "fallback", "the sandbox changed while it was read: fell back to a full walk"))
			}
		}
		if o.abandoned.Load() {
			return abandonedLoss(token, now)
		}
		if t.watch != nil && t.touchedWatches {
			t.reconcile(o.ev.watchList)
		}
		if t.watchErr != nil {
			recs = append(recs, o.degrade(token)...)
		}
	}
	if o.abandoned.Load() {
		// The walk was cut short: what it did not reach would read as
		// deleted. Nothing is compared; the sandbox is on its way out.
		return abandonedLoss(token, now)
	}
	changes := rootLast(t.end())
	recs = append(recs, o.losses(token, now)...)
	for i, c := range changes {
		if i == o.maxRecords {
			recs = append(recs, loss(token, now, "records",
				fmt.Sprintf("%d more file changes not listed (limit %d per Collect)", len(changes)-i, o.maxRecords)))
			break
		}
		recs = append(recs, record(c, token, now))
	}
	return recs
}

// abandonedLoss is what a look cut short by Abandon returns.
func abandonedLoss(token string, now time.Time) []observers.Record {
	return []observers.Record{loss(token, now, "abandoned", "the harness is ending: this look at the sandbox was cut short and compared nothing")}
}

// rootLast orders changes so that those under root, where a server works,
// come after those elsewhere, where a change is what a probe looks for:
// the bound on records cuts a flood in root, never a change outside it.
func rootLast(changes []Change) []Change {
	slices.SortStableFunc(changes, func(a, b Change) int {
		return cmp.Compare(rootRank(a), rootRank(b))
	})
	return changes
}

// rootRank is 1 for a change wholly under root (both ends of a rename), 0
// for one that touches anywhere else.
func rootRank(c Change) int {
	if watchedDir(c.Path) == layout.Root && (c.From == "" || watchedDir(c.From) == layout.Root) {
		return 1
	}
	return 0
}

// degrade stops the file events after a watch failed for a system limit:
// this and every later update is a full walk.
func (o *Observer) degrade(token string) []observers.Record {
	why := o.t.watchErr
	o.t.watchErr = nil
	if o.ev != nil {
		o.ev.close()
		o.ev, o.t.watch = nil, nil
	}
	o.t.watched = map[string]uint64{}
	if o.t.journal != nil {
		o.t.resync()
	}
	return []observers.Record{loss(token, o.now(), "watch-failed",
		fmt.Sprintf("%v: fell back to a full walk, now and at every later Collect", why))}
}

// losses reports the directories that became unreadable in the pass just
// ended, and each watched directory where more entries went unheld.
func (o *Observer) losses(token string, now time.Time) []observers.Record {
	var recs []observers.Record
	for _, d := range slices.Sorted(maps.Keys(o.t.snap.unreadable)) {
		if _, was := o.t.wasUnreadable[d]; !was {
			recs = append(recs, unreadableLoss(token, now, d, o.t.snap.unreadable[d]))
		}
	}
	dropped := o.t.droppedByDir()
	for _, w := range slices.Sorted(maps.Keys(dropped)) {
		if n := dropped[w]; n > o.t.wasDropped[w] {
			recs = append(recs, entriesLoss(token, now, w, n, o.t.maxEntries))
		}
	}
	return recs
}

// hold sets records aside until the next Collect or Close, within the bound.
func (o *Observer) hold(recs ...observers.Record) {
	for _, r := range recs {
		if len(o.pending) < o.maxRecords {
			o.pending = append(o.pending, r)
		} else {
			o.overflow++
		}
	}
}

// flush returns and forgets the records set aside.
func (o *Observer) flush() []observers.Record {
	out := o.pending
	if o.overflow > 0 {
		out = append(out, loss("", o.now(), "records",
			fmt.Sprintf("%d file records made between probes not listed (limit %d)", o.overflow, o.maxRecords)))
	}
	o.pending, o.overflow = nil, 0
	return out
}
