package files

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/observers"
)

// sandbox makes a sandbox top in a test directory: the watched directories,
// a control file, a canary, and bin/.
func sandbox(t testing.TB) string {
	t.Helper()
	top := t.TempDir()
	for _, d := range []string{"root", "root-evil", "canary", "home", "tmp", "bin"} {
		mkdir(t, filepath.Join(top, d))
	}
	write(t, filepath.Join(top, "root", "ok.txt"), "ok-token")
	write(t, filepath.Join(top, "canary", "secret.txt"), "sm-canary-0123456789abcdef")
	write(t, filepath.Join(top, "bin", "sm-echo"), "#!")
	return top
}

// mkdir makes p and its parents; t may be nil where a failure shows in the result.
func mkdir(t testing.TB, p string) {
	if err := os.MkdirAll(p, 0o755); err != nil && t != nil {
		t.Helper()
		t.Fatal(err)
	}
}

func write(t testing.TB, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// observe starts an Observer on top and closes it at cleanup.
func observe(t testing.TB, o Options) *Observer {
	t.Helper()
	obs, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { obs.Close() })
	return obs
}

// summaries returns the records' summaries, sorted.
func summaries(recs []observers.Record) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.Summary)
	}
	sort.Strings(out)
	return out
}

// kinds returns the records of one kind.
func kinds(recs []observers.Record, kind string) []observers.Record {
	var out []observers.Record
	for _, r := range recs {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

// sameSnapshot lists the differences between two snapshots' entries and
// unreadable sets.
func sameSnapshot(got, want *Snapshot) []string {
	var problems []string
	for _, p := range want.Paths() {
		w, _ := want.Entry(p)
		g, ok := got.Entry(p)
		switch {
		case !ok:
			problems = append(problems, p+": missing")
		case !g.same(w):
			problems = append(problems, p+": got "+describe(g)+", want "+describe(w))
		}
	}
	for _, p := range got.Paths() {
		if _, ok := want.Entry(p); !ok {
			problems = append(problems, p+": unexpected")
		}
	}
	gu, wu := slices.Sorted(maps.Keys(got.unreadable)), slices.Sorted(maps.Keys(want.unreadable))
	if !slices.Equal(gu, wu) {
		problems = append(problems, "unreadable: got "+strings.Join(gu, ",")+", want "+strings.Join(wu, ","))
	}
	return problems
}

// coherent checks a snapshot's directory index against its entries.
func coherent(s *Snapshot) []string {
	var problems []string
	for p := range s.entries {
		if _, ok := s.kids[parent(p)][base(p)]; !ok {
			problems = append(problems, p+": not listed under its directory")
		}
	}
	for d, names := range s.kids {
		for n := range names {
			if _, ok := s.entries[join(d, n)]; !ok {
				problems = append(problems, join(d, n)+": listed but not held")
			}
		}
	}
	return problems
}

func describe(e Entry) string {
	return fmt.Sprintf("%s size=%d mode=%v mtime=%v target=%q hash=%s ino=%d", e.Type, e.Size, e.Mode, e.MTime, e.Target, e.Hash, e.Ino)
}
