package files

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/internal/layout"
)

// Defaults for Options and Walk.
const (
	DefaultHashMax    = 64 << 10 // hash regular files up to 64 KiB
	DefaultMaxEntries = 100_000  // entries a snapshot holds under each watched directory
	DefaultMaxRecords = 10_000   // change records one Collect returns
)

// DefaultDirs are the sandbox directories watched when Options.Dirs is empty.
// bin/ is harness-owned and never watched.
var DefaultDirs = layout.Watched

// maxDepth bounds how deep under a watched directory entries are held; a
// directory deeper than that is reported as unreadable.
const maxDepth = 128

// Snapshot is the state of the watched directories at one moment: an Entry
// per path, paths relative to the top with forward slashes. The watched
// directories themselves are entries ("root"); the top is not. A Snapshot is
// not changed once returned.
type Snapshot struct {
	entries    map[string]Entry
	kids       map[string]map[string]struct{} // directory ("" is the top) → names held under it
	unreadable map[string]string              // directory → why its content is not held
	held       map[string]int                 // watched directory → entries held under it, itself included
	unheld     map[string]int                 // directory → names its last listing found but did not hold (the limit)
}

func newSnapshot() *Snapshot {
	return &Snapshot{
		entries:    map[string]Entry{},
		kids:       map[string]map[string]struct{}{},
		unreadable: map[string]string{},
		held:       map[string]int{},
		unheld:     map[string]int{},
	}
}

// Len is the number of entries held.
func (s *Snapshot) Len() int { return len(s.entries) }

// Entry returns the entry held for path ("root/ok.txt").
func (s *Snapshot) Entry(path string) (Entry, bool) {
	e, ok := s.entries[path]
	return e, ok
}

// Paths returns every path held, sorted.
func (s *Snapshot) Paths() []string { return slices.Sorted(maps.Keys(s.entries)) }

// Unreadable returns the directories whose content could not be read, each
// with the reason ("permission denied"). Changes under them are not seen.
func (s *Snapshot) Unreadable() map[string]string { return maps.Clone(s.unreadable) }

// Dropped is the number of entries seen but not held because their
// watched directory held its limit of entries: counted at each directory's
// last listing, so what is under a directory not held is not counted.
func (s *Snapshot) Dropped() int {
	n := 0
	for _, c := range s.unheld {
		n += c
	}
	return n
}

// clone returns a deep copy.
func (s *Snapshot) clone() *Snapshot {
	c := &Snapshot{
		entries:    maps.Clone(s.entries),
		kids:       make(map[string]map[string]struct{}, len(s.kids)),
		unreadable: maps.Clone(s.unreadable),
		held:       maps.Clone(s.held),
		unheld:     maps.Clone(s.unheld),
	}
	for d, k := range s.kids {
		c.kids[d] = maps.Clone(k)
	}
	return c
}

// Walk reads the watched directories dirs (names directly under top;
// DefaultDirs when empty) and returns their snapshot. It never follows a
// symbolic link and never reads outside top. Regular files up to hashMax
// bytes are hashed (0 means DefaultHashMax, a negative value hashes
// nothing). A directory that cannot be read is recorded in Unreadable, not
// returned as an error; the error is for a top that cannot be opened or
// invalid dirs.
func Walk(top string, dirs []string, hashMax int64) (*Snapshot, error) {
	dirs, err := cleanDirs(dirs)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(top)
	if err != nil {
		return nil, fmt.Errorf("files: %w", err)
	}
	defer root.Close()
	t := newTree(root, dirs, normHashMax(hashMax), DefaultMaxEntries)
	t.walk()
	return t.snap, nil
}

// cleanDirs validates the watched directory names and returns them sorted
// and deduplicated.
func cleanDirs(dirs []string) ([]string, error) {
	if len(dirs) == 0 {
		dirs = DefaultDirs
	}
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		c := strings.TrimSuffix(filepath.ToSlash(d), "/")
		switch {
		case c == "" || c == "." || c == ".." || strings.Contains(c, "/"):
			return nil, fmt.Errorf("files: watched directory %q: want a name directly under the top", d)
		case c == "bin":
			return nil, fmt.Errorf("files: watched directory %q: bin is harness-owned and never watched", d)
		}
		out = append(out, c)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func normHashMax(n int64) int64 {
	if n == 0 {
		return DefaultHashMax
	}
	return n
}

// parent returns the directory holding p ("" for a watched directory).
func parent(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// join appends name to directory d ("" is the top).
func join(d, name string) string {
	if d == "" {
		return name
	}
	return d + "/" + name
}

// base returns the last element of p.
func base(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// watchedDir is the watched directory p is in (or is): its first element.
func watchedDir(p string) string {
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return p
}

// depth is the number of elements in p.
func depth(p string) int { return strings.Count(p, "/") + 1 }
