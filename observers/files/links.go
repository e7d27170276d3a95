package files

import (
	"maps"
	"slices"
)

// putFile holds e at p like put, and keeps the set of hard-linked files: a
// write through one name changes the others without an event in their
// directories, so every name of a file with more than one link is re-read
// at every update. A new name finds an older one through byIno.
func (t *tree) putFile(p string, e Entry, links uint64) bool {
	if e.Type != TypeFile {
		return t.put(p, e)
	}
	other, ok := t.byIno[e.Ino]
	if !ok || other == p || !t.holdsFile(other, e.Ino) {
		other = ""
	}
	if !t.put(p, e) {
		return false
	}
	// The name seen last holds the inode in byIno: a rename puts the new
	// name before it removes the old, and a name read again after its other
	// names went is found there.
	t.byIno[e.Ino] = p
	if links <= 1 {
		delete(t.multi, p)
		return true
	}
	t.multi[p] = struct{}{}
	if other != "" {
		t.multi[other] = struct{}{}
	}
	return true
}

// refreshLinked re-reads every hard-linked file, hashing each inode once.
func (t *tree) refreshLinked() {
	read := map[uint64]Entry{} // inode → its entry read in this refresh
	for _, p := range slices.Sorted(maps.Keys(t.multi)) {
		old, ok := t.snap.entries[p]
		if !ok || old.Type != TypeFile {
			delete(t.multi, p)
			continue
		}
		r, err := t.openDir(parent(p))
		if err != nil {
			continue
		}
		name := base(p)
		if fi, err := r.Lstat(name); err == nil {
			same, reuse := read[old.Ino]
			if e, links := t.entryOf(r, name, p, fi, same, reuse); e.Type == TypeFile && e.Ino == old.Ino {
				read[e.Ino] = e
				t.putFile(p, e, links)
			}
		}
		if parent(p) != "" {
			r.Close()
		}
	}
}

// unindex forgets p as the name byIno gives for ino, handing the inode to
// another of its names; every name of a hard-linked file is in multi.
func (t *tree) unindex(p string, ino uint64) {
	if t.byIno[ino] != p {
		return
	}
	delete(t.byIno, ino)
	if _, linked := t.multi[p]; !linked {
		return
	}
	for q := range t.multi {
		if q != p && t.holdsFile(q, ino) {
			t.byIno[ino] = q
			return
		}
	}
}

func (t *tree) holdsFile(p string, ino uint64) bool {
	e, ok := t.snap.entries[p]
	return ok && e.Type == TypeFile && e.Ino == ino
}
