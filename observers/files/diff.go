package files

import (
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Change operations.
const (
	OpCreated     = "created"      // a file, directory or other entry appeared
	OpLinkCreated = "link-created" // a symbolic link appeared, or a link now points elsewhere
	OpModified    = "modified"     // a regular file's content changed
	OpDeleted     = "deleted"      // an entry disappeared
	OpRenamed     = "renamed"      // an entry moved: same inode, another path
	OpModeChanged = "mode-changed" // permission or special bits changed
)

// Change is one difference between two snapshots.
type Change struct {
	Op     string
	Path   string // the path the change is about; for OpRenamed the new path
	From   string // OpRenamed: the old path
	Before *Entry // nil for a creation
	After  *Entry // nil for a deletion
}

// Diff returns what changed from before to after, sorted by path. An entry
// that left one path for another with the same inode, type and content (for
// a regular file, the same size and hash, or mtime when not hashed; for a
// link, the same target; mtime otherwise) is renamed; the entries under a
// renamed directory are not listed again. Content is checked because file
// systems reuse a deleted entry's inode number at once; an entry moved and
// then changed is reported as deleted and created. (An Observer, which sees
// the events, also requires that the old path, or a directory above it, was
// renamed away.) A path under a directory unreadable in either snapshot is
// not compared.
func Diff(before, after *Snapshot) []Change {
	paths := maps.Clone(before.entries)
	maps.Copy(paths, after.entries)
	return diff(slices.Sorted(maps.Keys(paths)), before.Entry, after.Entry, before.unreadable, after.unreadable, plausible)
}

// plausible reports whether b, which left path g, can be the entry a that
// appeared elsewhere with the same inode and type: a rename keeps content
// and mtime.
func plausible(_ string, b, a Entry) bool {
	switch a.Type {
	case TypeFile:
		if b.Hash != "" && a.Hash != "" {
			return b.Size == a.Size && b.Hash == a.Hash
		}
		return b.Size == a.Size && b.MTime.Equal(a.MTime)
	case TypeLink:
		return b.Target == a.Target && b.MTime.Equal(a.MTime)
	}
	return b.MTime.Equal(a.MTime) && b.Mode == a.Mode
}

// Outside reports whether path (relative to the top) is not root itself or
// under it: Outside("root-evil/x", "root") is true, Outside("root/a/b",
// "root") is false.
func Outside(p, root string) bool {
	p = path.Clean(filepath.ToSlash(p))
	root = path.Clean(filepath.ToSlash(root))
	return p != root && !strings.HasPrefix(p, root+"/")
}

type lookup func(p string) (Entry, bool)

// diff compares before and after at paths (sorted). ub and ua are the
// directories unreadable before and after. pair says whether the entry b
// that left g can be the entry a found elsewhere with the same inode and
// type.
func diff(paths []string, before, after lookup, ub, ua map[string]string, pair func(g string, b, a Entry) bool) []Change {
	var (
		changes []Change
		gone    = map[uint64][]string{} // inode → paths it left (deleted or replaced)
		arrived []string                // paths holding an entry new to them
	)
	for _, p := range paths {
		if hidden(p, ub, ua) {
			continue
		}
		b, hb := before(p)
		a, ha := after(p)
		switch {
		case hb && ha && b.Type == a.Type && b.Ino == a.Ino:
			changes = content(changes, p, b, a)
		case hb && !ha && b.Ino == 0:
			changes = append(changes, Change{Op: OpDeleted, Path: p, Before: ptr(b)})
		default:
			if hb {
				gone[b.Ino] = append(gone[b.Ino], p)
			}
			if ha {
				arrived = append(arrived, p)
			}
		}
	}

	from := map[string]string{} // new path → old path
	moved := map[string]bool{}  // old paths paired with a new one
	for _, p := range arrived {
		a, _ := after(p)
		if a.Ino == 0 {
			continue
		}
		for i, g := range gone[a.Ino] {
			if b, _ := before(g); g != p && b.Type == a.Type && pair(g, b, a) {
				from[p], moved[g] = g, true
				gone[a.Ino] = slices.Delete(gone[a.Ino], i, i+1)
				break
			}
		}
	}

	for _, p := range arrived {
		a, _ := after(p)
		b, hb := before(p)
		g, renamed := from[p]
		if hb && b.Type != a.Type {
			changes = append(changes, Change{Op: OpDeleted, Path: p, Before: ptr(b)})
			hb = false
		}
		switch {
		case renamed:
			if !implied(g, p, from) {
				gb, _ := before(g)
				changes = append(changes, Change{Op: OpRenamed, Path: p, From: g, Before: ptr(gb), After: ptr(a)})
			}
			if !hb { // compare with what moved here; an overwritten entry is compared below
				b, hb = before(g)
			}
			changes = content(changes, p, b, a)
		case hb: // replaced by another inode of the same type
			changes = content(changes, p, b, a)
		default:
			changes = append(changes, created(p, a))
		}
	}
	for _, ps := range gone {
		for _, g := range ps {
			if _, still := after(g); !still && !moved[g] {
				b, _ := before(g)
				changes = append(changes, Change{Op: OpDeleted, Path: g, Before: ptr(b)})
			}
		}
	}
	slices.SortStableFunc(changes, func(x, y Change) int {
		if c := strings.Compare(x.Path, y.Path); c != 0 {
			return c
		}
		return opRank[x.Op] - opRank[y.Op]
	})
	return changes
}

// opRank orders the changes at one path as they happened.
var opRank = map[string]int{OpDeleted: 0, OpRenamed: 1, OpCreated: 2, OpLinkCreated: 2, OpModified: 3, OpModeChanged: 4}

// content compares two states of the same kind of entry at p.
func content(changes []Change, p string, b, a Entry) []Change {
	switch a.Type {
	case TypeFile:
		if contentDiffers(b, a) {
			changes = append(changes, Change{Op: OpModified, Path: p, Before: ptr(b), After: ptr(a)})
		}
	case TypeLink:
		if b.Target != a.Target {
			changes = append(changes, Change{Op: OpLinkCreated, Path: p, Before: ptr(b), After: ptr(a)})
		}
		return changes // a link's mode means nothing
	}
	if modeBits(b.Mode) != modeBits(a.Mode) {
		changes = append(changes, Change{Op: OpModeChanged, Path: p, Before: ptr(b), After: ptr(a)})
	}
	return changes
}

// contentDiffers compares regular files by hash when both were hashed,
// by size, mtime and inode otherwise.
func contentDiffers(b, a Entry) bool {
	if b.Size != a.Size {
		return true
	}
	if b.Hash != "" && a.Hash != "" {
		return b.Hash != a.Hash
	}
	return !b.MTime.Equal(a.MTime) || b.Ino != a.Ino
}

func created(p string, a Entry) Change {
	op := OpCreated
	if a.Type == TypeLink {
		op = OpLinkCreated
	}
	return Change{Op: op, Path: p, After: ptr(a)}
}

// implied reports whether the rename g → p follows from its parent's rename.
func implied(g, p string, from map[string]string) bool {
	pg, pp := parent(g), parent(p)
	return pp != "" && from[pp] == pg && base(g) == base(p)
}

// hidden reports whether p is under a directory unreadable before or after.
func hidden(p string, ub, ua map[string]string) bool {
	if len(ub) == 0 && len(ua) == 0 {
		return false
	}
	for q := p; q != ""; {
		q = parent(q)
		if _, ok := ub[q]; ok {
			return true
		}
		if _, ok := ua[q]; ok {
			return true
		}
	}
	return false
}

func modeBits(m fs.FileMode) fs.FileMode {
	return m & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

func ptr(e Entry) *Entry { return &e }
