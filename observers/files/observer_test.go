package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/fsnotify/fsnotify"
	"github.com/sealmark/sealmark/observers"
)

func TestCollectReportsEveryOp(t *testing.T) {
	top := sandbox(t)
	p := func(rel string) string { return filepath.Join(top, rel) }
	write(t, p("root/old.txt"), "old")
	obs := observe(t, Options{Top: top})
	if obs.ev == nil {
		t.Fatal("file events are not running; this test covers the incremental path")
	}
	steps := []struct {
		token string
		do    func()
		want  []string
	}{
		{"tok-create", func() { write(t, p("root-evil/x"), "hello") }, []string{"created root-evil/x (5 bytes)"}},
		{"tok-modify", func() { write(t, p("canary/secret.txt"), "sm-canary-ffffffffffffffff") }, []string{"modified canary/secret.txt"}},
		{"tok-rename", func() { must(t, os.Rename(p("root/old.txt"), p("tmp/old.txt"))) }, []string{"renamed root/old.txt -> tmp/old.txt"}},
		{"tok-link", func() { must(t, os.Symlink("../canary", p("root/out"))) }, []string{"link-created root/out -> ../canary"}},
		{"tok-delete", func() { must(t, os.Remove(p("root/ok.txt"))) }, []string{"deleted root/ok.txt"}},
		{"tok-chmod", func() { must(t, os.Chmod(p("tmp/old.txt"), 0o777)) }, []string{"mode-changed tmp/old.txt 0644 -> 0777"}},
		{"tok-mkdir", func() {
			mkdir(t, p("home/a/b"))
			write(t, p("home/a/b/c"), "c")
		}, []string{"created home/a (directory)", "created home/a/b (directory)", "created home/a/b/c (1 bytes)"}},
		{"tok-dirmove", func() { must(t, os.Rename(p("home/a"), p("root/a"))) }, []string{"renamed home/a -> root/a"}},
		{"tok-inside-moved", func() { write(t, p("root/a/b/c"), "changed") }, []string{"modified root/a/b/c"}},
		{"tok-rmdir", func() { must(t, os.RemoveAll(p("root/a"))) }, []string{"deleted root/a", "deleted root/a/b", "deleted root/a/b/c"}},
		{"tok-delete-create", func() {
			// ext4 and tmpfs give the new file the inode just freed: a
			// delete and a create, not a rename.
			must(t, os.Remove(p("tmp/old.txt")))
			write(t, p("home/new.txt"), "new")
		}, []string{"created home/new.txt (3 bytes)", "deleted tmp/old.txt"}},
		{"tok-move-then-write", func() {
			must(t, os.Rename(p("home/new.txt"), p("root/moved.txt")))
			write(t, p("root/moved.txt"), "changed after the move")
		}, []string{"created root/moved.txt (22 bytes)", "deleted home/new.txt"}},
		{"tok-nothing", func() {}, nil},
	}
	for _, s := range steps {
		obs.Begin(s.token)
		s.do()
		recs := obs.Collect(s.token)
		if got := summaries(recs); !slices.Equal(got, s.want) {
			t.Errorf("%s: Collect = %q, want %q", s.token, got, s.want)
		}
		for _, r := range recs {
			if r.Token != s.token || r.Kind != observers.KindFile || r.Observer != "files" {
				t.Errorf("%s: record %q has token %q kind %q observer %q", s.token, r.Summary, r.Token, r.Kind, r.Observer)
			}
		}
	}
	checkTruth(t, obs)
}

// checkTruth fails when the observer's snapshot differs from a full walk.
func checkTruth(t *testing.T, obs *Observer) {
	t.Helper()
	want, err := Walk(obs.t.top.Name(), obs.t.dirs, obs.t.hashMax)
	must(t, err)
	got := obs.Snapshot()
	if problems := sameSnapshot(got, want); len(problems) > 0 {
		t.Errorf("snapshot differs from a full walk:\n%s", strings.Join(problems, "\n"))
	}
	if problems := coherent(got); len(problems) > 0 {
		t.Errorf("index: %v", problems)
	}
}

func TestRecordData(t *testing.T) {
	top := sandbox(t)
	obs := observe(t, Options{Top: top})
	obs.Begin("t1")
	write(t, filepath.Join(top, "tmp", "f"), "hello")
	must(t, os.Symlink("../canary", filepath.Join(top, "tmp", "l")))
	must(t, os.Rename(filepath.Join(top, "root", "ok.txt"), filepath.Join(top, "tmp", "ok.txt")))
	recs := obs.Collect("t1")
	allowed := []string{"op", "path", "from", "type", "size", "mode", "target", "hash"}
	byPath := map[string]map[string]string{}
	for _, r := range recs {
		for k := range r.Data {
			if !slices.Contains(allowed, k) {
				t.Errorf("%s: data key %q is not one of %v", r.Summary, k, allowed)
			}
		}
		byPath[r.Data["path"]] = r.Data
	}
	f := byPath["tmp/f"]
	if f["op"] != OpCreated || f["type"] != TypeFile || f["size"] != "5" || f["mode"] != "0644" || len(f["hash"]) != 16 {
		t.Errorf("tmp/f data = %v, want created file size 5 mode 0644 and a 16-digit hash", f)
	}
	if l := byPath["tmp/l"]; l["op"] != OpLinkCreated || l["target"] != "../canary" || l["type"] != TypeLink {
		t.Errorf("tmp/l data = %v, want link-created with target ../canary", l)
	}
	if r := byPath["tmp/ok.txt"]; r["op"] != OpRenamed || r["from"] != "root/ok.txt" {
		t.Errorf("tmp/ok.txt data = %v, want renamed from root/ok.txt", r)
	}
}

func TestChangesOutsideWatchedDirsNotReported(t *testing.T) {
	top := sandbox(t)
	obs := observe(t, Options{Top: top, Dirs: []string{"root", "canary"}})
	obs.Begin("t1")
	write(t, filepath.Join(top, "bin", "sm-new"), "x")
	write(t, filepath.Join(top, "top-file"), "x")
	mkdir(t, filepath.Join(top, "other", "deep"))
	write(t, filepath.Join(top, "tmp", "unwatched"), "x") // tmp not in Dirs here
	if recs := obs.Collect("t1"); len(recs) != 0 {
		t.Errorf("Collect = %q, want nothing for changes outside the watched directories", summaries(recs))
	}
	obs.Begin("t2")
	write(t, filepath.Join(top, "root", "seen"), "x")
	if got := summaries(obs.Collect("t2")); !slices.Equal(got, []string{"created root/seen (1 bytes)"}) {
		t.Errorf("Collect = %q, want the change in root/", got)
	}
}

func TestChangesBetweenProbesCarryNoToken(t *testing.T) {
	top := sandbox(t)
	obs := observe(t, Options{Top: top})
	obs.Begin("t1")
	write(t, filepath.Join(top, "tmp", "during-1"), "x")
	recs := obs.Collect("t1")
	if got := summaries(recs); !slices.Equal(got, []string{"created tmp/during-1 (1 bytes)"}) {
		t.Fatalf("first Collect = %q", got)
	}

	write(t, filepath.Join(top, "tmp", "between"), "x") // no probe open
	obs.Begin("t2")
	write(t, filepath.Join(top, "tmp", "during-2"), "x")
	recs = obs.Collect("t2")
	tokens := map[string]string{}
	for _, r := range recs {
		tokens[r.Data["path"]] = r.Token
	}
	want := map[string]string{"tmp/between": "", "tmp/during-2": "t2"}
	if fmt.Sprint(tokens) != fmt.Sprint(want) {
		t.Errorf("tokens by path = %v, want %v", tokens, want)
	}
	if len(recs) == 2 && recs[0].Token != "" {
		t.Errorf("the records with no token come first; got %q first", recs[0].Summary)
	}

	// A second Collect for the same probe returns only what is new.
	write(t, filepath.Join(top, "tmp", "during-2b"), "x")
	if got := summaries(obs.Collect("t2")); !slices.Equal(got, []string{"created tmp/during-2b (1 bytes)"}) {
		t.Errorf("second Collect = %q, want only the new change", got)
	}
	// Changes after the last Collect are returned by Close, with no token.
	write(t, filepath.Join(top, "tmp", "late"), "x")
	late := obs.Close()
	if got := summaries(late); !slices.Equal(got, []string{"created tmp/late (1 bytes)"}) || late[0].Token != "" {
		t.Errorf("Close = %q, want the late change with no token", got)
	}
	if again := obs.Close(); again != nil {
		t.Errorf("second Close = %q, want nil", summaries(again))
	}
	if after := obs.Collect("t3"); after != nil {
		t.Errorf("Collect after Close = %q, want nil", summaries(after))
	}
}

func TestOverflowFallsBackToFullWalk(t *testing.T) {
	top := sandbox(t)
	obs := observe(t, Options{Top: top})
	if obs.ev == nil {
		t.Skip("file events unavailable on this platform")
	}
	obs.Begin("t1")
	write(t, filepath.Join(top, "home", "a"), "a")
	must(t, os.Remove(filepath.Join(top, "root", "ok.txt")))
	obs.ev.fail(fsnotify.ErrEventOverflow) // as the watcher reports a queue overflow
	recs := obs.Collect("t1")
	losses := kinds(recs, observers.KindLoss)
	if len(losses) != 1 || losses[0].Summary != "inotify overflow: fell back to a full walk" || losses[0].Token != "t1" {
		t.Errorf("loss records = %q, want one overflow record for t1", summaries(losses))
	}
	want := []string{"created home/a (1 bytes)", "deleted root/ok.txt"}
	if got := summaries(kinds(recs, observers.KindFile)); !slices.Equal(got, want) {
		t.Errorf("file records = %q, want %q", got, want)
	}
	// Back on events: the next Collect is incremental and exact.
	obs.Begin("t2")
	write(t, filepath.Join(top, "home", "b"), "b")
	if got := summaries(obs.Collect("t2")); !slices.Equal(got, []string{"created home/b (1 bytes)"}) {
		t.Errorf("Collect after the fallback = %q", got)
	}
	checkTruth(t, obs)
}

// failingWatch fails to watch one directory with a system-limit error.
type failingWatch struct {
	watcher
	fail string
}

func (f failingWatch) add(rel string) error {
	if rel == f.fail {
		return syscall.ENOSPC
	}
	return f.watcher.add(rel)
}

func TestWatchLimitFallsBackForGood(t *testing.T) {
	top := sandbox(t)
	obs := observe(t, Options{Top: top})
	if obs.ev == nil {
		t.Skip("file events unavailable on this platform")
	}
	obs.t.watch = failingWatch{obs.ev, "tmp/new"}
	obs.Begin("t1")
	mkdir(t, filepath.Join(top, "tmp", "new"))
	write(t, filepath.Join(top, "tmp", "new", "f"), "f")
	recs := obs.Collect("t1")
	losses := kinds(recs, observers.KindLoss)
	if len(losses) != 1 || !strings.Contains(losses[0].Summary, "could not watch tmp/new") ||
		!strings.Contains(losses[0].Summary, "fell back to a full walk") {
		t.Errorf("loss records = %q, want one saying the watch failed and a full walk was made", summaries(losses))
	}
	want := []string{"created tmp/new (directory)", "created tmp/new/f (1 bytes)"}
	if got := summaries(kinds(recs, observers.KindFile)); !slices.Equal(got, want) {
		t.Errorf("file records = %q, want %q", got, want)
	}
	if obs.ev != nil {
		t.Errorf("file events still running after a watch limit")
	}
	// Without events every Collect walks, still exact, with no new loss record.
	obs.Begin("t2")
	write(t, filepath.Join(top, "tmp", "new", "f"), "changed")
	if got := summaries(obs.Collect("t2")); !slices.Equal(got, []string{"modified tmp/new/f"}) {
		t.Errorf("Collect without events = %q, want the modification alone", got)
	}
	checkTruth(t, obs)
}

func TestUnreadableDirectoryIsALoss(t *testing.T) {
	// As root, chmod 000 does not stop reading; the open is made to fail
	// through the tree's hook with the error the kernel would return.
	top := sandbox(t)
	mkdir(t, filepath.Join(top, "root", "locked"))
	write(t, filepath.Join(top, "root", "locked", "f"), "f")
	obs := observe(t, Options{Top: top})
	locked := true
	obs.t.failOpen = func(rel string) error {
		if locked && rel == "root/locked" {
			return &os.PathError{Op: "openat", Path: rel, Err: syscall.EACCES}
		}
		return nil
	}
	obs.Begin("t1")
	write(t, filepath.Join(top, "root", "locked", "g"), "g")
	recs := obs.Collect("t1")
	losses := kinds(recs, observers.KindLoss)
	if len(losses) != 1 || losses[0].Summary != "cannot read root/locked (permission denied): changes under it are not observed" {
		t.Errorf("loss records = %q, want one for root/locked", summaries(losses))
	}
	if files := kinds(recs, observers.KindFile); len(files) != 0 {
		t.Errorf("file records = %q, want none under an unreadable directory", summaries(files))
	}
	// Still unreadable: no second loss record.
	obs.Begin("t2")
	write(t, filepath.Join(top, "root", "locked", "h"), "h")
	if recs := obs.Collect("t2"); len(recs) != 0 {
		t.Errorf("second Collect = %q, want nothing", summaries(recs))
	}
	// Readable again: changes are seen again.
	locked = false
	obs.Begin("t3")
	must(t, os.Chmod(filepath.Join(top, "root", "locked"), 0o755))
	obs.Collect("t3")
	obs.Begin("t4")
	write(t, filepath.Join(top, "root", "locked", "f"), "changed")
	if got := summaries(obs.Collect("t4")); !slices.Equal(got, []string{"modified root/locked/f"}) {
		t.Errorf("Collect once readable = %q, want the modification", got)
	}
	checkTruth(t, obs)
}

func TestUnreadableDirectoryChmod(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a mode-000 directory; TestUnreadableDirectoryIsALoss covers this through a hook")
	}
	top := sandbox(t)
	mkdir(t, filepath.Join(top, "root", "locked"))
	obs := observe(t, Options{Top: top})
	obs.Begin("t1")
	write(t, filepath.Join(top, "root", "locked", "f"), "f")
	must(t, os.Chmod(filepath.Join(top, "root", "locked"), 0))
	t.Cleanup(func() { os.Chmod(filepath.Join(top, "root", "locked"), 0o755) })
	recs := obs.Collect("t1")
	losses := kinds(recs, observers.KindLoss)
	if len(losses) != 1 || !strings.HasPrefix(losses[0].Summary, "cannot read root/locked") {
		t.Errorf("loss records = %q, want one for root/locked", summaries(losses))
	}
}

func TestLinksAreNeverFollowed(t *testing.T) {
	top := sandbox(t)
	outside := t.TempDir()
	write(t, filepath.Join(outside, "real"), "outside the sandbox")
	obs := observe(t, Options{Top: top})
	obs.Begin("t1")
	must(t, os.Symlink(".", filepath.Join(top, "root", "loop")))
	must(t, os.Symlink(outside, filepath.Join(top, "root", "escape")))
	must(t, os.Symlink(filepath.Join(outside, "real"), filepath.Join(top, "root", "escape-file")))
	want := []string{
		"link-created root/escape -> " + outside,
		"link-created root/escape-file -> " + filepath.Join(outside, "real"),
		"link-created root/loop -> .",
	}
	if got := summaries(obs.Collect("t1")); !slices.Equal(got, want) {
		t.Errorf("Collect = %q, want %q", got, want)
	}
	// A change on the far side of a link is not the sandbox's.
	obs.Begin("t2")
	write(t, filepath.Join(outside, "real"), "changed outside")
	write(t, filepath.Join(outside, "new"), "x")
	if recs := obs.Collect("t2"); len(recs) != 0 {
		t.Errorf("Collect = %q, want nothing for changes behind links", summaries(recs))
	}
	if e, _ := obs.Snapshot().Entry("root/escape-file"); e.Hash != "" || e.Type != TypeLink {
		t.Errorf("root/escape-file = %+v, want an unhashed link", e)
	}
	checkTruth(t, obs)
}

func TestHardLinkedCanaryWriteIsSeen(t *testing.T) {
	top := sandbox(t)
	obs := observe(t, Options{Top: top})
	obs.Begin("t1")
	must(t, os.Link(filepath.Join(top, "canary", "secret.txt"), filepath.Join(top, "root", "hl")))
	if got := summaries(obs.Collect("t1")); !slices.Equal(got, []string{"created root/hl (26 bytes)"}) {
		t.Errorf("Collect = %q", got)
	}
	obs.Begin("t2")
	write(t, filepath.Join(top, "root", "hl"), "overwritten through the link")
	want := []string{"modified canary/secret.txt", "modified root/hl"}
	if got := summaries(obs.Collect("t2")); !slices.Equal(got, want) {
		t.Errorf("Collect = %q, want %q", got, want)
	}
	checkTruth(t, obs)
}

func TestMaxRecords(t *testing.T) {
	top := sandbox(t)
	obs := observe(t, Options{Top: top, MaxRecords: 3})
	obs.Begin("t1")
	for i := range 5 {
		write(t, filepath.Join(top, "tmp", fmt.Sprint(i)), "x")
	}
	recs := obs.Collect("t1")
	if n := len(kinds(recs, observers.KindFile)); n != 3 {
		t.Errorf("file records = %d, want the limit 3", n)
	}
	losses := kinds(recs, observers.KindLoss)
	if len(losses) != 1 || losses[0].Summary != "2 more file changes not listed (limit 3 per Collect)" {
		t.Errorf("loss records = %q", summaries(losses))
	}
}

// TestMaxEntriesIsALoss: each watched directory holds at most MaxEntries
// entries (itself included); what is beyond is counted in a loss record
// naming the directory, and another directory's room is its own.
func TestMaxEntriesIsALoss(t *testing.T) {
	top := sandbox(t)
	obs := observe(t, Options{Top: top, MaxEntries: 3}) // tmp holds tmp; root holds root and ok.txt
	obs.Begin("t1")
	for _, name := range []string{"a", "b", "c"} {
		write(t, filepath.Join(top, "tmp", name), "x")
	}
	write(t, filepath.Join(top, "root", "x"), "x")
	recs := obs.Collect("t1")
	want := []string{"created root/x (1 bytes)", "created tmp/a (1 bytes)", "created tmp/b (1 bytes)"}
	if got := summaries(kinds(recs, observers.KindFile)); !slices.Equal(got, want) {
		t.Errorf("file records = %q, want %q (tmp has room for two, root for one)", got, want)
	}
	losses := kinds(recs, observers.KindLoss)
	if len(losses) != 1 {
		t.Fatalf("loss records = %q, want one counting the entry not held", summaries(losses))
	}
	d := losses[0].Data
	if d[observers.KeyReason] != "entries" || d[observers.KeyPath] != "tmp" || d[observers.KeyCount] != "1" || d[observers.KeyMax] != "3" {
		t.Errorf("loss record %q: Data = %v, want reason entries, path tmp, count 1, max 3", losses[0].Summary, d)
	}
	// The count is said again only when it grows.
	obs.Begin("t2")
	write(t, filepath.Join(top, "tmp", "a"), "changed")
	recs = obs.Collect("t2")
	if got := summaries(recs); !slices.Equal(got, []string{"modified tmp/a"}) {
		t.Errorf("Collect after = %q, want only the modification", got)
	}
}

func TestConcurrentUse(t *testing.T) {
	top := sandbox(t)
	obs := observe(t, Options{Top: top})
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]bool{}
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5 {
				tok := fmt.Sprintf("g%d-%d", g, i)
				obs.Begin(tok)
				write(t, filepath.Join(top, "tmp", tok), "x")
				for _, r := range obs.Collect(tok) {
					mu.Lock()
					seen[r.Data["path"]] = true
					mu.Unlock()
				}
				_ = obs.Snapshot()
			}
		}()
	}
	wg.Wait()
	for _, r := range obs.Close() {
		seen[r.Data["path"]] = true
	}
	for g := range 4 {
		for i := range 5 {
			if p := fmt.Sprintf("tmp/g%d-%d", g, i); !seen[p] {
				t.Errorf("%s: never reported", p)
			}
		}
	}
}

func TestCloseStopsTheWatcher(t *testing.T) {
	top := sandbox(t)
	obs, err := New(Options{Top: top})
	must(t, err)
	ev := obs.ev
	obs.Close()
	if ev == nil {
		t.Skip("file events unavailable on this platform")
	}
	select {
	case <-ev.done:
	default:
		t.Errorf("the event goroutine is still running after Close")
	}
	if _, err := os.Stat(ev.barrier); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("barrier directory %s left behind: %v", ev.barrier, err)
	}
}

func TestTooManyChangesFallBackToFullWalk(t *testing.T) {
	top := sandbox(t)
	obs := observe(t, Options{Top: top})
	if obs.ev == nil {
		t.Skip("file events unavailable on this platform")
	}
	obs.ev.mu.Lock()
	obs.ev.bound = 10
	obs.ev.mu.Unlock()
	obs.Begin("t1")
	var want []string
	for i := range 20 {
		write(t, filepath.Join(top, "home", fmt.Sprintf("f%02d", i)), "x")
		want = append(want, fmt.Sprintf("created home/f%02d (1 bytes)", i))
	}
	recs := obs.Collect("t1")
	losses := kinds(recs, observers.KindLoss)
	if len(losses) != 1 || losses[0].Summary != "more than 10 paths changed: fell back to a full walk" {
		t.Errorf("loss records = %q, want one for the bound", summaries(losses))
	}
	if got := summaries(kinds(recs, observers.KindFile)); !slices.Equal(got, want) {
		t.Errorf("file records = %q, want %q", got, want)
	}
	checkTruth(t, obs)
}

func TestStoppedWatcherFallsBackForGood(t *testing.T) {
	top := sandbox(t)
	obs := observe(t, Options{Top: top})
	if obs.ev == nil {
		t.Skip("file events unavailable on this platform")
	}
	obs.ev.w.Close() // as if inotify failed under the observer
	obs.Begin("t1")
	write(t, filepath.Join(top, "root", "x"), "x")
	recs := obs.Collect("t1")
	losses := kinds(recs, observers.KindLoss)
	if len(losses) != 1 || losses[0].Summary != "the file event watcher stopped: fell back to a full walk, now and at every later Collect" {
		t.Errorf("loss records = %q, want one saying the watcher stopped", summaries(losses))
	}
	if got := summaries(kinds(recs, observers.KindFile)); !slices.Equal(got, []string{"created root/x (1 bytes)"}) {
		t.Errorf("file records = %q", got)
	}
	obs.Begin("t2")
	must(t, os.Remove(filepath.Join(top, "root", "x")))
	if got := summaries(obs.Collect("t2")); !slices.Equal(got, []string{"deleted root/x"}) {
		t.Errorf("Collect with full walks = %q, want the deletion alone", got)
	}
}

func TestRewriteKeepingSizeAndMTimeIsSeen(t *testing.T) {
	top := sandbox(t)
	p := filepath.Join(top, "canary", "secret.txt")
	obs := observe(t, Options{Top: top})
	fi, err := os.Stat(p)
	must(t, err)
	obs.Begin("t1")
	write(t, p, "sm-canary-XXXXXXXXXXXXXXXX") // same size
	must(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
	if got := summaries(obs.Collect("t1")); !slices.Equal(got, []string{"modified canary/secret.txt"}) {
		t.Errorf("Collect = %q, want the modification found by hash", got)
	}
	checkTruth(t, obs)
}

func TestDirectoryRemadeAtTheSamePathIsWatched(t *testing.T) {
	// The new directory usually gets the inode just freed: only the
	// events tell it from the old one, whose watch went with it.
	top := sandbox(t)
	d := filepath.Join(top, "tmp", "d")
	mkdir(t, d)
	write(t, filepath.Join(d, "old"), "x")
	obs := observe(t, Options{Top: top})
	obs.Begin("t1")
	must(t, os.RemoveAll(d))
	mkdir(t, d)
	if got := summaries(obs.Collect("t1")); !slices.Equal(got, []string{"deleted tmp/d/old"}) &&
		!slices.Equal(got, []string{"created tmp/d (directory)", "deleted tmp/d", "deleted tmp/d/old"}) {
		t.Errorf("Collect = %q, want tmp/d/old deleted (and tmp/d made again when its inode changed)", got)
	}
	obs.Begin("t2")
	write(t, filepath.Join(d, "new"), "y")
	if got := summaries(obs.Collect("t2")); !slices.Equal(got, []string{"created tmp/d/new (1 bytes)"}) {
		t.Errorf("Collect in the directory made again = %q, want the new file", got)
	}
	checkTruth(t, obs)
}
