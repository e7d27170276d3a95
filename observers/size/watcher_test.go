package size

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sealmark/sealmark/observers"
)

// exceeds counts OnExceed calls.
type exceeds struct {
	mu     sync.Mutex
	totals []int64
	ch     chan int64
}

func newExceeds() *exceeds { return &exceeds{ch: make(chan int64, 10)} }

func (e *exceeds) call(total int64) {
	e.mu.Lock()
	e.totals = append(e.totals, total)
	e.mu.Unlock()
	e.ch <- total
}

func (e *exceeds) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.totals)
}

func (e *exceeds) wait(t *testing.T) int64 {
	t.Helper()
	select {
	case total := <-e.ch:
		return total
	case <-time.After(10 * time.Second):
		t.Fatal("OnExceed was not called within 10s")
	}
	return 0
}

func TestWatcherOverTheLimit(t *testing.T) {
	top := t.TempDir()
	const limit = 2 << 20
	ex := newExceeds()
	w := Start(Options{Top: top, MaxBytes: limit, Interval: 10 * time.Millisecond, OnExceed: ex.call})
	t.Cleanup(func() { w.Close() })
	w.Begin("tok-bomb")

	done := make(chan error, 1)
	go func() { // the disk bomb: real writes, past the limit
		done <- write(filepath.Join(top, "bomb.bin"), 4<<20)
	}()
	total := ex.wait(t)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if total <= limit {
		t.Errorf("OnExceed(%d), want a total over %d", total, limit)
	}

	recs := w.Collect("tok-bomb")
	if len(recs) != 1 {
		t.Fatalf("Collect = %+v, want one record", recs)
	}
	r := recs[0]
	got, _ := strconv.ParseInt(r.Data["total"], 10, 64)
	if r.Kind != observers.KindSize || r.Observer != "size" || r.Token != "tok-bomb" || r.Data["op"] != "exceeded" ||
		r.Data["limit"] != strconv.Itoa(limit) || got <= limit || r.Data["attributed"] != "time" {
		t.Errorf("record = %+v", r)
	}
	if want := "sandbox grew to " + r.Data["total"] + " bytes, over the 2097152-byte limit"; r.Summary != want {
		t.Errorf("Summary = %q, want %q", r.Summary, want)
	}
	if w.Total() <= limit {
		t.Errorf("Total() = %d, want over %d", w.Total(), limit)
	}

	// Still over: no new record, no new call.
	if again := w.Collect("tok-bomb"); len(again) != 0 || ex.count() != 1 {
		t.Errorf("while still over: Collect = %+v, OnExceed calls = %d; want nothing new", again, ex.count())
	}

	// Under again, then over again: a second crossing.
	if err := os.Remove(filepath.Join(top, "bomb.bin")); err != nil {
		t.Fatal(err)
	}
	w.Begin("tok-2") // samples: under the limit
	if ex.count() != 1 {
		t.Fatalf("OnExceed calls = %d after the file was removed, want 1", ex.count())
	}
	writeFile(t, filepath.Join(top, "bomb2.bin"), 3<<20)
	ex.wait(t)
	if recs := w.Collect("tok-2"); len(recs) != 1 || recs[0].Data["op"] != "exceeded" {
		t.Errorf("second crossing: Collect = %+v, want one record", recs)
	}
	if rest := w.Close(); len(rest) != 0 {
		t.Errorf("Close = %+v, want nothing left", rest)
	}
	if ex.count() != 2 {
		t.Errorf("OnExceed calls = %d, want 2", ex.count())
	}
}

func TestWatcherUnderTheLimit(t *testing.T) {
	top := t.TempDir()
	ex := newExceeds()
	w := Start(Options{Top: top, MaxBytes: 64 << 20, Interval: 5 * time.Millisecond, OnExceed: ex.call})
	w.Begin("tok")
	writeFile(t, filepath.Join(top, "small.bin"), 1<<20)
	if recs := w.Collect("tok"); len(recs) != 0 {
		t.Errorf("under the limit: Collect = %+v", recs)
	}
	if w.Total() < 1<<20 {
		t.Errorf("Total() = %d, want at least 1 MiB", w.Total())
	}
	if rest := w.Close(); len(rest) != 0 {
		t.Errorf("Close = %+v", rest)
	}
	if ex.count() != 0 {
		t.Errorf("OnExceed called %d times under the limit", ex.count())
	}
	if w.Collect("tok") != nil || w.Close() != nil {
		t.Error("a closed Watcher returned records")
	}
}

func TestWatcherNoLimitAndMissingTop(t *testing.T) {
	w := Start(Options{Top: filepath.Join(t.TempDir(), "missing")})
	recs := w.Close()
	if len(recs) != 1 || recs[0].Kind != observers.KindLoss {
		t.Errorf("Close on a missing top = %+v, want one loss record", recs)
	}
}

func TestWatcherCrossingBetweenProbesGoesToClose(t *testing.T) {
	top := t.TempDir()
	writeFile(t, filepath.Join(top, "f"), 1<<20)
	w := Start(Options{Top: top, MaxBytes: 4096, Interval: time.Hour})
	rest := w.Close()
	if len(rest) != 1 || rest[0].Token != "" || rest[0].Data["op"] != "exceeded" {
		t.Errorf("Close = %+v, want one exceeded record without a token", rest)
	}
	if _, ok := rest[0].Data["attributed"]; ok {
		t.Error("a record outside any probe says it is attributed")
	}
}

// TestWatcherEstimate: with an Estimate, Begin and Collect walk the tree
// only when the last walk's total plus the estimate's growth since comes
// near the limit; then the walk, not the estimate, decides the record and
// OnExceed, attributed to the probe open.
func TestWatcherEstimate(t *testing.T) {
	top := t.TempDir()
	const limit = 2 << 20
	ex := newExceeds()
	var est atomic.Int64
	w := Start(Options{Top: top, MaxBytes: limit, Interval: time.Hour, OnExceed: ex.call, Estimate: est.Load})
	t.Cleanup(func() { w.Close() })
	walks := func() int64 {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.walks
	}
	deadline := time.Now().Add(5 * time.Second)
	for walks() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // the first walk, at Start
	}
	base := walks()
	for i := range 20 {
		tok := "tok-" + strconv.Itoa(i)
		w.Begin(tok)
		est.Add(1000) // a probe writing a little
		if recs := w.Collect(tok); len(recs) != 0 {
			t.Fatalf("%s: Collect = %+v", tok, recs)
		}
	}
	if got := walks() - base; got != 0 {
		t.Errorf("%d walks for 20 probes far below the limit, want none", got)
	}

	w.Begin("tok-near")
	writeFile(t, filepath.Join(top, "big.bin"), 3<<20)
	est.Add(3 << 20) // the files observer saw it
	recs := w.Collect("tok-near")
	if got := walks() - base; got != 1 {
		t.Errorf("%d walks once the estimate neared the limit, want 1", got)
	}
	if len(recs) != 1 || recs[0].Data["op"] != "exceeded" || recs[0].Token != "tok-near" {
		t.Fatalf("Collect = %+v, want the crossing attributed to tok-near", recs)
	}
	ex.wait(t)

	// An estimate that overstates (a file it counted is gone) makes a walk,
	// and the walk finds nothing over: no record, no call.
	if err := os.Remove(filepath.Join(top, "big.bin")); err != nil {
		t.Fatal(err)
	}
	w.Begin("tok-gone") // walks: under again
	est.Add(3 << 20)
	if recs := w.Collect("tok-gone"); len(recs) != 0 {
		t.Errorf("an overstated estimate made a record: %+v", recs)
	}
	if ex.count() != 1 {
		t.Errorf("OnExceed calls = %d, want 1", ex.count())
	}
}
