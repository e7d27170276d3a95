package size

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sealmark/sealmark/internal/quota"
	"github.com/sealmark/sealmark/observers"
)

// Options configures a Watcher.
type Options struct {
	// Top is the directory whose bytes are counted: the sandbox.
	Top string
	// MaxBytes is the limit. Zero or less means none: the Watcher only
	// keeps Total.
	MaxBytes int64
	// Interval is the time between samples. Default 200 ms.
	Interval time.Duration
	// OnExceed is called, from the Watcher's goroutine, each time the total
	// goes over MaxBytes: the engine stops the sandbox's processes. It must
	// not call Close. nil means nothing is called.
	OnExceed func(total int64)
	// Estimate, when set, is a cheap running count of part of the tree
	// (the files observer's Allocated): Begin and Collect then walk the
	// tree only when the last walk's total plus what Estimate grew since
	// comes near MaxBytes, so a probe costs next to nothing in a large
	// sandbox; the walks every Interval (or longer: see Start) still
	// count the whole tree and alone decide OnExceed. nil walks at every
	// Begin and Collect.
	Estimate func() int64
	// Quota says Top is a filesystem of its own of MaxBytes (the
	// sandbox's quota, see internal/quota): the filesystem refuses a write
	// past the limit, so the tree can reach MaxBytes, never pass it, and
	// its own counters (statfs) give the total at once, with no walk. The
	// limit counts as crossed when the filesystem is full.
	Quota bool
}

// near is the fraction of MaxBytes past which an estimate makes Begin and
// Collect walk the tree.
const near = 0.9

// DefaultInterval is the sampling interval when Options.Interval is zero.
const DefaultInterval = 200 * time.Millisecond

// waitSample bounds how long Begin, Collect and Close wait for a sample; a
// walk that takes longer is left to finish in the background.
const waitSample = 2 * time.Second

// maxPending bounds the records a Watcher keeps.
const maxPending = 1000

// Watcher samples the size of a directory tree in its own goroutine. It is
// safe for concurrent use.
type Watcher struct {
	opts  Options
	total atomic.Int64
	req   chan chan struct{} // an immediate sample, closed when done
	stop  chan struct{}      // closed by Close or Abandon: the goroutine and its walk stop
	done  chan struct{}
	once  sync.Once // closes stop

	mu      sync.Mutex
	anchor  int64  // Estimate() when the last walk began
	walks   int64  // walks taken, for tests
	token   string // the open probe, "" when none is
	over    bool   // the last sample was over the limit
	pending []observers.Record
	lost    map[string]bool
	closed  bool
}

// Start starts watching o.Top. The first sample is taken at once.
func Start(o Options) *Watcher {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	w := &Watcher{
		opts: o,
		req:  make(chan chan struct{}),
		stop: make(chan struct{}),
		done: make(chan struct{}),
		lost: map[string]bool{},
	}
	go w.run()
	return w
}

// Name returns "size".
func (w *Watcher) Name() string { return "size" }

// Total returns the bytes counted by the latest sample.
func (w *Watcher) Total() int64 { return w.total.Load() }

// Begin samples (see Options.Estimate), so a crossing that happened
// before is not attributed to the probe, then opens the probe token until
// the next Begin or Close.
func (w *Watcher) Begin(token string) {
	w.sampleIfNear()
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.token = token
	}
}

// Collect samples (see Options.Estimate) and returns the records
// attributed to token that no Collect returned yet.
func (w *Watcher) Collect(token string) []observers.Record {
	w.sampleIfNear()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	var out, keep []observers.Record
	for _, r := range w.pending {
		if r.Token == token {
			out = append(out, r)
		} else {
			keep = append(keep, r)
		}
	}
	w.pending = keep
	return out
}

// Close takes a last sample, stops the Watcher, and returns every record no
// Collect returned.
func (w *Watcher) Close() []observers.Record {
	w.sampleNow()
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	out := w.pending
	w.pending = nil
	w.mu.Unlock()
	w.once.Do(func() { close(w.stop) })
	select {
	case <-w.done:
	case <-time.After(waitSample):
	}
	return out
}

// Abandon stops the sampling goroutine and the walk it is in: Begin,
// Collect and Close take no sample from now on (OnExceed is not called
// again), and Close returns what was recorded before. For a harness ending
// on a signal, which must not walk a sandbox it is about to delete.
func (w *Watcher) Abandon() { w.once.Do(func() { close(w.stop) }) }

// sampleIfNear samples unless an Estimate says the tree is still well
// below MaxBytes.
func (w *Watcher) sampleIfNear() {
	if w.opts.Estimate != nil && w.opts.MaxBytes > 0 && !w.opts.Quota {
		w.mu.Lock()
		est := w.total.Load() + w.opts.Estimate() - w.anchor
		w.mu.Unlock()
		if float64(est) < near*float64(w.opts.MaxBytes) {
			return
		}
	}
	w.sampleNow()
}

// sampleNow asks the goroutine for a sample and waits for it, within
// waitSample.
func (w *Watcher) sampleNow() {
	timer := time.NewTimer(waitSample)
	defer timer.Stop()
	reply := make(chan struct{})
	select {
	case w.req <- reply:
	case <-w.stop:
		return
	case <-timer.C:
		return
	}
	select {
	case <-reply:
	case <-w.done:
	case <-timer.C:
	}
}

// run walks the tree every Interval, or every four walks' time when a
// walk takes longer than a quarter of it (a large sandbox costs at most a
// fifth of a core), and whenever Begin, Collect or Close ask.
func (w *Watcher) run() {
	defer close(w.done)
	next := w.sample(nil)
	t := time.NewTimer(next)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			t.Reset(w.sample(nil))
		case reply := <-w.req:
			w.sample(reply)
		}
	}
}

// sample counts the tree, records a crossing of the limit, closes reply,
// and then calls OnExceed if the limit was crossed. It returns how long to
// wait for the next timed walk.
func (w *Watcher) sample(reply chan struct{}) time.Duration {
	var anchor int64
	if w.opts.Estimate != nil {
		anchor = w.opts.Estimate()
	}
	began := time.Now()
	var total, free int64
	var err error
	if w.opts.Quota {
		total, free, err = quota.Usage(w.opts.Top)
	} else {
		total, err = usage(w.opts.Top, w.stop)
	}
	took := time.Since(began)
	if errors.Is(err, errStopped) {
		if reply != nil {
			close(reply)
		}
		return w.opts.Interval
	}
	w.total.Store(total)
	limit := w.opts.MaxBytes
	w.mu.Lock()
	w.anchor = anchor
	w.walks++
	if err != nil {
		w.lossOnce("unreadable", err.Error())
	}
	crossed := false
	over := total > limit
	summary := fmt.Sprintf("sandbox grew to %d bytes, over the %d-byte limit", total, limit)
	if w.opts.Quota {
		over = err == nil && free <= 0
		summary = fmt.Sprintf("sandbox filled its %d-byte limit (%d bytes in use): a write past it failed", limit, total)
	}
	switch {
	case limit <= 0:
	case over && !w.over:
		w.over, crossed = true, true
		w.add(observers.KindSize, summary, map[string]string{
			observers.KeyOp:    "exceeded",
			observers.KeyTotal: strconv.FormatInt(total, 10),
			observers.KeyLimit: strconv.FormatInt(limit, 10),
		})
	case !over:
		w.over = false
	}
	w.mu.Unlock()
	if reply != nil {
		close(reply)
	}
	if crossed && w.opts.OnExceed != nil {
		w.opts.OnExceed(total)
	}
	return max(w.opts.Interval, 4*took)
}

// add keeps a record attributed to the open probe. w.mu is held.
func (w *Watcher) add(kind, summary string, data map[string]string) {
	if len(w.pending) >= maxPending {
		return
	}
	if w.token != "" {
		data[observers.KeyAttributed] = "time"
	}
	w.pending = append(w.pending, observers.Record{
		Kind: kind, Observer: w.Name(), Time: time.Now(), Token: w.token, Summary: summary, Data: data,
	})
}

// lossOnce records an unreadable part of the tree, once per key. w.mu is
// held.
func (w *Watcher) lossOnce(key, msg string) {
	if w.lost[key] {
		return
	}
	w.lost[key] = true
	w.add(observers.KindLoss, "the sandbox size undercounts: "+msg, map[string]string{observers.KeyOp: "loss"})
}

var (
	_ observers.Observer  = (*Watcher)(nil)
	_ observers.Abandoner = (*Watcher)(nil)
)
