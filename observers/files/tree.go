package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sync/atomic"
)

// watcher is what a tree needs from a file-event source: a watch per
// directory, added before the directory is read.
type watcher interface {
	add(rel string) error // rel "" is the top
	remove(rel string)
}

// tree keeps a Snapshot current. A full walk is a tree filled from nothing;
// an update re-reads only the directories events named dirty. Every change
// to the snapshot goes through put and remove, which journal the entry as it
// was before the pass, so a pass's changes are the journal's diff.
type tree struct {
	top        *os.Root
	dirs       []string
	hashMax    int64
	maxEntries int
	buf        []byte

	snap  *Snapshot
	alloc allocation          // the bytes the held entries are given, each inode once
	byIno map[uint64]string   // a file path per inode: finds the other names of a hard-linked file
	multi map[string]struct{} // files with more than one link: re-read at every update

	watch          watcher           // nil: no events
	watched        map[string]uint64 // directory → the inode it is watched at ("" is the top)
	watchErr       error             // a watch failed for a system limit; watch is now nil
	touchedWatches bool              // a watch was added or removed in this pass

	journal       map[string]*Entry // path → entry before this pass (nil: absent); nil outside a pass
	wasUnreadable map[string]string // Snapshot.unreadable before this pass
	fresh         []string          // directories to read whole once this pass's removals are done
	wasDropped    map[string]int    // droppedByDir before this pass
	raced         bool              // the sandbox changed under the pass: only a full walk is exact
	moved         map[string]bool   // paths events saw renamed away in this pass; nil after a full walk

	stop *atomic.Bool // set: the observer was abandoned, a walk stops at its next entry (nil: never)

	failOpen func(rel string) error // tests: opening this directory fails with the error returned
}

// stopped reports whether the walk in progress is to stop now.
func (t *tree) stopped() bool { return t.stop != nil && t.stop.Load() }

func newTree(top *os.Root, dirs []string, hashMax int64, maxEntries int) *tree {
	return &tree{
		top:        top,
		dirs:       dirs,
		hashMax:    hashMax,
		maxEntries: maxEntries,
		buf:        make([]byte, 32<<10),
		snap:       newSnapshot(),
		alloc:      allocation{files: map[uint64]*inodeAlloc{}},
		byIno:      map[uint64]string{},
		multi:      map[string]struct{}{},
		watched:    map[string]uint64{},
	}
}

// walk fills an empty tree: every watched directory is read whole.
func (t *tree) walk() {
	t.relist("", nil)
	t.drainFresh()
}

// begin starts a pass: from here until end, changes are journaled.
func (t *tree) begin() {
	t.journal = map[string]*Entry{}
	t.wasUnreadable = t.snap.Unreadable()
	t.wasDropped = t.droppedByDir()
	t.raced = false
	t.touchedWatches = false
	t.moved = nil
}

// end closes the pass and returns its changes.
func (t *tree) end() []Change {
	j := t.journal
	t.journal = nil
	before := func(p string) (Entry, bool) {
		if e := j[p]; e != nil {
			return *e, true
		}
		return Entry{}, false
	}
	pair := plausible
	if moved := t.moved; moved != nil {
		// Events tell a move from a delete, even when the inode number of
		// a deleted entry is reused at once with the same content.
		pair = func(g string, b, a Entry) bool {
			for q := g; q != ""; q = parent(q) {
				if moved[q] {
					return plausible(g, b, a)
				}
			}
			return false
		}
	}
	return diff(slices.Sorted(maps.Keys(j)), before, t.snap.Entry, t.wasUnreadable, t.snap.unreadable, pair)
}

// relist reads directory d ("" is the top) again: it is watched first, then
// its own entry is refreshed and its direct entries are compared with what
// the snapshot holds. Subdirectories that are new or were unreadable are
// queued to be read whole.
func (t *tree) relist(d string, rehash map[string]bool) {
	if t.stopped() {
		t.raced = true
		return
	}
	var ino uint64
	if d != "" {
		e, ok := t.snap.entries[d]
		if !ok || e.Type != TypeDir {
			return
		}
		if depth(d) > maxDepth {
			t.markUnreadable(d, fmt.Sprintf("nested deeper than %d levels", maxDepth))
			return
		}
		ino = e.Ino
	}
	if !t.ensureWatched(d, ino) {
		return
	}
	r, err := t.openDir(d)
	if err != nil {
		if isGone(err) {
			t.raced = true
		} else {
			t.markUnreadable(d, reason(err))
		}
		return
	}
	names := t.dirs
	if d != "" {
		defer r.Close()
		fi, err := r.Lstat(".")
		if err != nil {
			t.markUnreadable(d, reason(err))
			return
		}
		own, _ := t.entryOf(r, ".", d, fi, Entry{}, false)
		if own.Type != TypeDir || own.Ino != ino {
			t.raced = true // d now names another directory: its parent's listing is stale
			return
		}
		t.put(d, own)
		if names, err = readNames(r, t.stopped); err != nil {
			t.markUnreadable(d, reason(err))
			return
		}
		if t.stopped() {
			t.raced = true
			return
		}
	}
	delete(t.snap.unreadable, d)
	seen := make(map[string]struct{}, len(names))
	unheld := 0
	for _, name := range names {
		if t.stopped() {
			t.raced = true
			return
		}
		if p := join(d, name); t.full(p) {
			if _, had := t.snap.entries[p]; !had {
				unheld++ // counted, not read: a flood costs no lstat, no hash, no memory
				continue
			}
		}
		ok, err := t.visit(r, d, name, rehash)
		if err != nil {
			t.markUnreadable(d, reason(err))
			return
		}
		if ok {
			seen[name] = struct{}{}
		}
	}
	for name := range t.snap.kids[d] {
		if _, ok := seen[name]; !ok {
			t.removeSubtree(join(d, name))
		}
	}
	if unheld > 0 {
		t.snap.unheld[d] = unheld
	} else {
		delete(t.snap.unheld, d)
	}
}

// full reports whether the watched directory p is in holds its limit of
// entries: a path new to the snapshot there is counted, not held.
func (t *tree) full(p string) bool {
	return t.snap.held[watchedDir(p)] >= t.maxEntries
}

// droppedByDir is Snapshot.Dropped for each watched directory.
func (t *tree) droppedByDir() map[string]int {
	out := map[string]int{}
	for d, n := range t.snap.unheld {
		out[watchedDir(d)] += n
	}
	return out
}

// visit brings the entry for name in directory d (opened as r) up to date.
// It reports whether name exists.
func (t *tree) visit(r *os.Root, d, name string, rehash map[string]bool) (bool, error) {
	p := join(d, name)
	fi, err := r.Lstat(name)
	if err != nil {
		if isGone(err) {
			return false, nil
		}
		return false, err
	}
	old, had := t.snap.entries[p]
	e, links := t.entryOf(r, name, p, fi, old, had && !rehash[p])
	sameDir := had && old.Type == TypeDir && e.Type == TypeDir && e.Ino == old.Ino
	if had && old.Type == TypeDir && !sameDir {
		t.removeSubtree(p)
	}
	if !t.putFile(p, e, links) {
		return true, nil
	}
	if e.Type == TypeDir {
		if _, bad := t.snap.unreadable[p]; !sameDir || bad {
			t.fresh = append(t.fresh, p)
		}
	}
	return true, nil
}

// entryOf builds the entry for name in r from its lstat, and returns the
// link count. A regular file keeps old's hash when reuse is set and its
// inode, size and mtime are unchanged; otherwise it is hashed again.
func (t *tree) entryOf(r *os.Root, name, p string, fi fs.FileInfo, old Entry, reuse bool) (Entry, uint64) {
	ino, links := inode(fi)
	e := Entry{Path: p, Type: typeOf(fi.Mode()), Size: fi.Size(), Mode: fi.Mode(), MTime: fi.ModTime(), Ino: ino, Alloc: allocated(fi)}
	switch e.Type {
	case TypeLink:
		if target, err := r.Readlink(name); err == nil {
			e.Target = target
		}
	case TypeFile:
		if reuse && old.Type == TypeFile && old.Ino == e.Ino && old.Size == e.Size && old.MTime.Equal(e.MTime) {
			e.Hash = old.Hash
		} else if t.hashMax >= 0 && e.Size <= t.hashMax {
			e.Hash = hashFile(r, name, e, t.hashMax, t.buf)
		}
	}
	return e, links
}

// openDir opens directory d ("" is the top itself, which callers must not
// close). os.Root keeps every open inside the top.
func (t *tree) openDir(d string) (*os.Root, error) {
	if t.failOpen != nil {
		if err := t.failOpen(d); err != nil {
			return nil, err
		}
	}
	if d == "" {
		return t.top, nil
	}
	return t.top.OpenRoot(d)
}

// markUnreadable records that d's content cannot be held and drops what
// was held under it.
func (t *tree) markUnreadable(d, why string) {
	t.snap.unreadable[d] = why
	delete(t.snap.unheld, d)
	for name := range t.snap.kids[d] {
		t.removeSubtree(join(d, name))
	}
}

// put holds e at p. It reports false when p is new and its watched
// directory holds its limit of entries (relist counts those).
func (t *tree) put(p string, e Entry) bool {
	old, had := t.snap.entries[p]
	if had && old.same(e) {
		return true
	}
	if !had {
		if t.full(p) {
			return false
		}
		t.snap.held[watchedDir(p)]++
		d := parent(p)
		k := t.snap.kids[d]
		if k == nil {
			k = map[string]struct{}{}
			t.snap.kids[d] = k
		}
		k[base(p)] = struct{}{}
	}
	t.note(p, old, had)
	t.snap.entries[p] = e
	if had {
		t.alloc.sub(old)
	}
	t.alloc.add(e)
	if had && old.Type == TypeFile && (e.Type != TypeFile || e.Ino != old.Ino) {
		t.unindex(p, old.Ino)
	}
	return true
}

// removeSubtree drops p and everything held under it.
func (t *tree) removeSubtree(p string) {
	for name := range t.snap.kids[p] {
		t.removeSubtree(join(p, name))
	}
	t.remove(p)
}

// remove drops the entry at p (its children must be gone already).
func (t *tree) remove(p string) {
	old, ok := t.snap.entries[p]
	if !ok {
		return
	}
	t.note(p, old, true)
	delete(t.snap.entries, p)
	t.snap.held[watchedDir(p)]--
	t.alloc.sub(old)
	if k := t.snap.kids[parent(p)]; k != nil {
		delete(k, base(p))
	}
	switch old.Type {
	case TypeDir:
		delete(t.snap.kids, p)
		delete(t.snap.unreadable, p)
		delete(t.snap.unheld, p)
		if _, ok := t.watched[p]; ok {
			t.unwatch(p)
		}
	case TypeFile:
		t.unindex(p, old.Ino)
		delete(t.multi, p)
	}
}

// note journals the entry p had before this pass, once.
func (t *tree) note(p string, old Entry, had bool) {
	if t.journal == nil {
		return
	}
	if _, ok := t.journal[p]; ok {
		return
	}
	if had {
		t.journal[p] = &old
	} else {
		t.journal[p] = nil
	}
}

// readNames lists an opened directory, sorted so walks are repeatable. It
// reads in batches and returns nil early once stop reports true: a
// directory of 500,000 names takes a second to list on a loaded machine.
func readNames(r *os.Root, stop func() bool) ([]string, error) {
	f, err := r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	for !stop() {
		batch, err := f.Readdirnames(namesBatch)
		names = append(names, batch...)
		if errors.Is(err, io.EOF) || err == nil && len(batch) == 0 {
			slices.Sort(names)
			return names, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// namesBatch is how many names readNames reads between two looks at stop.
const namesBatch = 4096

// reason is an error's cause without the path it names: "permission denied".
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}
