package files

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/sealmark/sealmark/observers"
)

// flood is a server that fills root/many with n empty files in one probe
// and then, as its last act of the probe, writes outside the root (the
// (n+1)th file) and leaves a world-writable file in tmp: the two changes
// a pack looks for, made when root is far past its limit.
type flood struct {
	n, maxEntries, maxRecords int
}

// run floods an observer's sandbox and returns what the flood's Collect
// gave and the heap the observer kept for the files past its limit (the
// records, bounded by maxRecords, apart).
func (f flood) run(t *testing.T) (seen facts, obs *Observer, extra int64) {
	t.Helper()
	top := sandbox(t)
	many := filepath.Join(top, "root", "many")
	mkdir(t, many)
	obs = observe(t, Options{Top: top, MaxEntries: f.maxEntries, MaxRecords: f.maxRecords})
	create := func(from, to int) {
		for i := from; i < to; i++ {
			fd, err := os.Create(filepath.Join(many, "f"+strconv.Itoa(i)))
			if err != nil {
				t.Fatal(err)
			}
			fd.Close()
		}
	}
	// Fill root to its limit, then measure what the files past it cost.
	obs.Begin("fill")
	create(0, f.maxEntries)
	obs.Collect("fill")
	base := heap()
	obs.Begin("flood")
	create(f.maxEntries, f.n)
	write(t, filepath.Join(top, "root-evil", "written-by-server.txt"), "flood")
	must(t, os.WriteFile(filepath.Join(top, "tmp", "shared"), []byte("flood"), 0o644))
	must(t, os.Chmod(filepath.Join(top, "tmp", "shared"), 0o666))
	seen = f.facts(t, obs.Collect("flood"))
	return seen, obs, heap() - base
}

// facts is what a flood's records showed.
type facts struct {
	records int
	outside bool // root-evil/written-by-server.txt created, with the flood's token
	shared  bool // tmp/shared 0666, with the flood's token
	counted bool // a loss record counts the entries under root not held
}

func (f flood) facts(t *testing.T, recs []observers.Record) facts {
	t.Helper()
	out := facts{records: len(recs)}
	for _, r := range recs {
		d := r.Data
		switch {
		case r.Kind == observers.KindFile && d[observers.KeyPath] == "root-evil/written-by-server.txt" && d[observers.KeyOp] == OpCreated:
			out.outside = r.Token == "flood"
		case r.Kind == observers.KindFile && d[observers.KeyPath] == "tmp/shared" && d[observers.KeyMode] == "0666":
			out.shared = r.Token == "flood"
		case r.Kind == observers.KindLoss && d[observers.KeyReason] == "entries" && d[observers.KeyPath] == "root":
			// root holds root, ok.txt, many and as many files as fit
			want := strconv.Itoa(f.n - (f.maxEntries - 3))
			out.counted = d[observers.KeyCount] == want && d[observers.KeyMax] == strconv.Itoa(f.maxEntries)
			if !out.counted {
				t.Errorf("loss record %q: count %s, max %s; want count %s, max %d", r.Summary, d[observers.KeyCount], d[observers.KeyMax], want, f.maxEntries)
			}
		}
	}
	return out
}

// heap is the live heap after a collection.
func heap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// check holds a flood to its bounds: the entries held under root stay at
// the limit, the loss record counts the rest, the heap kept for them is
// within budget (bytes a file: a held entry costs about 340), and the
// change outside the root and the world-writable file are both listed,
// whatever the bound on records cut.
func (f flood) check(t *testing.T, seen facts, obs *Observer, extra int64, budget int64) {
	t.Helper()
	snap := obs.Snapshot()
	if held := snap.held["root"]; held > f.maxEntries {
		t.Errorf("root: held %d entries, want at most the limit %d", held, f.maxEntries)
	}
	past := int64(f.n - f.maxEntries)
	t.Logf("%d files past the limit kept %d bytes of heap (%.1f a file)", past, extra, float64(extra)/float64(past))
	if extra > past*budget {
		t.Errorf("%d files past the limit kept %d bytes of heap, want at most %d a file (%d)", past, extra, budget, past*budget)
	}
	if !seen.outside {
		t.Errorf("the write to root-evil, file %d, is not among the flood's %d records", f.n+1, seen.records)
	}
	if !seen.shared {
		t.Errorf("tmp/shared made world-writable is not among the flood's %d records", seen.records)
	}
	if !seen.counted {
		t.Errorf("no loss record counts the entries under root not held; records: %d", seen.records)
	}
}

// TestFloodPastTheLimit: 20,000 files in root under a limit of 2,000 held
// and 500 records a Collect. What they cost past the limit does not grow
// with them, and the changes outside the root made after them are seen.
func TestFloodPastTheLimit(t *testing.T) {
	f := flood{n: 20_000, maxEntries: 2_000, maxRecords: 500}
	seen, obs, extra := f.run(t)
	f.check(t, seen, obs, extra, 64)
}

// TestFloodOf200000Files is TestFloodPastTheLimit at the default limits,
// 200,000 files in all (100,000 past the limit); the changes outside the
// root are the 200,001st and 200,002nd files.
func TestFloodOf200000Files(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 200,000 files; run without -short")
	}
	f := flood{n: 200_000, maxEntries: DefaultMaxEntries, maxRecords: DefaultMaxRecords}
	seen, obs, extra := f.run(t)
	f.check(t, seen, obs, extra, 32)
}

// TestOutsideChangeListedFirst: the bound on records cuts the changes in
// root, never one elsewhere, even one whose path sorts after root's.
func TestOutsideChangeListedFirst(t *testing.T) {
	top := sandbox(t)
	obs := observe(t, Options{Top: top, MaxRecords: 5})
	obs.Begin("t1")
	for i := range 20 {
		write(t, filepath.Join(top, "root", fmt.Sprintf("f%02d", i)), "x")
	}
	write(t, filepath.Join(top, "tmp", "z"), "x")
	must(t, os.Rename(filepath.Join(top, "canary", "secret.txt"), filepath.Join(top, "root", "secret.txt")))
	recs := obs.Collect("t1")
	var got []string
	for _, r := range kinds(recs, observers.KindFile) {
		got = append(got, r.Summary)
	}
	if len(got) != 5 || got[0] != "renamed canary/secret.txt -> root/secret.txt" || got[1] != "created tmp/z (1 bytes)" {
		t.Errorf("records = %q, want the rename out of canary and tmp/z first, then three of root's", got)
	}
}
