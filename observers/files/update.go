package files

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// update re-reads what the dirty paths name: a directory is listed again
// (its direct entries only; a new directory under it is read whole), a
// file is hashed again when its directory is listed. A directory events saw
// removed or renamed away is dropped first, whatever inode its path holds
// now: its watch went with it, and a new one at the path is read whole.
func (t *tree) update(dirty map[string]uint8) {
	type dir struct {
		path string
		ino  uint64
	}
	t.moved = map[string]bool{}
	var away []string
	for p, how := range dirty {
		if how&movedAway != 0 {
			t.moved[p] = true
		}
		if e, ok := t.snap.entries[p]; ok && e.Type == TypeDir && how&(movedAway|removedHere) != 0 {
			away = append(away, p)
		}
	}
	slices.Sort(away)
	for _, p := range away {
		t.removeSubtree(p)
	}
	rehash := map[string]bool{}
	var scan []dir
	for p := range dirty {
		if p == "" {
			scan = append(scan, dir{})
			continue
		}
		if e, ok := t.snap.entries[p]; ok && e.Type == TypeDir {
			scan = append(scan, dir{p, e.Ino})
		} else {
			rehash[p] = true
		}
	}
	slices.SortFunc(scan, func(a, b dir) int { return strings.Compare(a.path, b.path) }) // parents first
	for _, d := range scan {
		// Skip a directory removed or replaced while its parent was listed:
		// a replacement is read whole as a fresh directory.
		if e, ok := t.snap.entries[d.path]; d.path == "" || ok && e.Type == TypeDir && e.Ino == d.ino {
			t.relist(d.path, rehash)
		}
	}
	t.drainFresh()
	t.refreshLinked()
}

// resync replaces the snapshot with a full walk, journaling every
// difference, then watches every directory held (reading again the ones
// newly watched, for changes made between the walk and the watch).
func (t *tree) resync() {
	n := newTree(t.top, t.dirs, t.hashMax, t.maxEntries)
	n.failOpen, n.stop = t.failOpen, t.stop
	n.walk()
	for p, e := range t.snap.entries {
		if ne, ok := n.snap.entries[p]; !ok || !ne.same(e) {
			t.note(p, e, true)
		}
	}
	for p := range n.snap.entries {
		if _, ok := t.snap.entries[p]; !ok {
			t.note(p, Entry{}, false)
		}
	}
	t.snap, t.alloc, t.byIno, t.multi = n.snap, n.alloc, n.byIno, n.multi
	t.moved = nil // no events for this pass: renames are paired by plausibility
	if t.watch == nil {
		return
	}
	for d, ino := range t.watched {
		if e, ok := t.snap.entries[d]; d != "" && (!ok || e.Type != TypeDir || e.Ino != ino) {
			t.unwatch(d)
		}
	}
	var missing []string
	if _, ok := t.watched[""]; !ok {
		missing = append(missing, "")
	}
	for p, e := range t.snap.entries {
		if w, ok := t.watched[p]; e.Type == TypeDir && (!ok || w != e.Ino) {
			missing = append(missing, p)
		}
	}
	slices.SortFunc(missing, strings.Compare)
	for _, d := range missing {
		t.relist(d, nil)
	}
	t.drainFresh()
}

// reconcile checks the watches the event source holds against the ones the
// tree expects and repairs the difference: a watch the source files under a
// stale path (a directory moved while watched) is removed, and the
// directories left unwatched are watched and read again.
func (t *tree) reconcile(list func() []string) {
	for range 3 {
		have := map[string]bool{}
		for _, p := range list() {
			have[p] = true
		}
		var missing []string
		for p := range have {
			if _, ok := t.watched[p]; !ok {
				t.watch.remove(p)
			}
		}
		for p := range t.watched {
			if !have[p] {
				delete(t.watched, p)
				missing = append(missing, p)
			}
		}
		if len(missing) == 0 {
			return
		}
		slices.SortFunc(missing, strings.Compare)
		for _, d := range missing {
			t.relist(d, nil)
		}
		t.drainFresh()
		if t.watch == nil {
			return
		}
	}
	t.watchErr = errors.New("the file watches could not be kept consistent")
	t.watch = nil
}

// drainFresh reads whole every directory found new in this pass.
func (t *tree) drainFresh() {
	for len(t.fresh) > 0 && !t.stopped() {
		d := t.fresh[len(t.fresh)-1]
		t.fresh = t.fresh[:len(t.fresh)-1]
		if e, ok := t.snap.entries[d]; ok && e.Type == TypeDir {
			t.relist(d, nil)
		}
	}
}

// ensureWatched watches directory d before it is read. It reports false
// when d cannot be watched (d is then marked unreadable) or is gone.
func (t *tree) ensureWatched(d string, ino uint64) bool {
	if t.watch == nil {
		return true
	}
	w, ok := t.watched[d]
	if ok && w == ino {
		return true
	}
	if ok {
		t.unwatch(d)
	}
	t.touchedWatches = true
	if err := t.watch.add(d); err != nil {
		switch {
		case isGone(err):
			t.raced = true
			return false
		case isLimit(err):
			t.watchErr = fmt.Errorf("could not watch %s (%s)", show(d), reason(err))
			t.watch = nil
			return true
		}
		t.markUnreadable(d, "cannot watch: "+reason(err))
		return false
	}
	t.watched[d] = ino
	return true
}

func (t *tree) unwatch(d string) {
	if t.watch != nil {
		t.watch.remove(d)
	}
	delete(t.watched, d)
	t.touchedWatches = true
}
