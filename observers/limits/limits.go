// Package limits records when a server meets the process or memory limit
// of its containment: forks refused at the process limit and processes
// killed for memory, read from counters the containment layer keeps (the
// cgroup leaf's pids.events and memory.events, or their v1 twins).
//
//	w := limits.New(limits.Options{MaxProcs: 1024, MaxMemory: 4 << 30})
//	w.Add(func() limits.Counts { h := leaf.Hits(); return limits.Counts{h.ProcsRefused, h.OOMKills} })
//	w.Begin(token)
//	// ... the probe calls the server ...
//	recs := w.Collect(token) // a KindLimit record per limit met since Begin
//
// The counters only grow; a source that can no longer be read (its leaf
// removed) keeps its last value.
package limits

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/sealmark/sealmark/observers"
)

// Counts are how often a server met its limits so far.
type Counts struct {
	ProcsRefused int64 // forks and clones refused at the process limit
	OOMKills     int64 // processes killed for going past the memory limit
}

// Options are the limits, for the records' text.
type Options struct {
	MaxProcs  int   // tasks (processes and threads)
	MaxMemory int64 // bytes
}

// Watcher is the limits observer.
type Watcher struct {
	o       Options
	mu      sync.Mutex
	sources []*source
	mark    Counts             // the totals at the last Begin or Collect
	between []observers.Record // met while no probe was open, for Collect("")
}

type source struct {
	read func() Counts
	last Counts
}

// New returns a Watcher with no source yet: Add one per server start.
func New(o Options) *Watcher { return &Watcher{o: o} }

// Add adds the counters of one start's containment.
func (w *Watcher) Add(read func() Counts) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := &source{read: read}
	s.last = read()
	// what it counted before it was added (nothing, for a new leaf) is no
	// probe's doing
	w.mark.ProcsRefused += s.last.ProcsRefused
	w.mark.OOMKills += s.last.OOMKills
	w.sources = append(w.sources, s)
}

// Name is "limits".
func (w *Watcher) Name() string { return "limits" }

// Begin marks the counters at the probe's start; what was met since the
// last mark belongs to no probe and waits for Collect("").
func (w *Watcher) Begin(string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.total()
	w.between = append(w.between, w.records("", now)...)
	w.mark = now
}

// Collect returns a record for each limit met since Begin or the last
// Collect, attributed to token; Collect("") also returns what was met
// between probes.
func (w *Watcher) Collect(token string) []observers.Record {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.total()
	var recs []observers.Record
	if token == "" {
		recs, w.between = w.between, nil
	}
	recs = append(recs, w.records(token, now)...)
	w.mark = now
	return recs
}

// Close returns what no Collect returned.
func (w *Watcher) Close() []observers.Record { return w.Collect("") }

// total sums the sources, each never below its last reading. w.mu is held.
func (w *Watcher) total() Counts {
	var t Counts
	for _, s := range w.sources {
		c := s.read()
		s.last.ProcsRefused = max(s.last.ProcsRefused, c.ProcsRefused)
		s.last.OOMKills = max(s.last.OOMKills, c.OOMKills)
		t.ProcsRefused += s.last.ProcsRefused
		t.OOMKills += s.last.OOMKills
	}
	return t
}

func (w *Watcher) records(token string, now Counts) []observers.Record {
	var recs []observers.Record
	at := time.Now().UTC()
	if d := now.ProcsRefused - w.mark.ProcsRefused; d > 0 {
		recs = append(recs, observers.Record{
			Kind: observers.KindLimit, Observer: "limits", Time: at, Token: token,
			Summary: fmt.Sprintf("%d forks refused at the process limit (%d tasks)", d, w.o.MaxProcs),
			Data:    map[string]string{observers.KeyLimit: "procs", observers.KeyCount: strconv.FormatInt(d, 10), observers.KeyMax: strconv.Itoa(w.o.MaxProcs)},
		})
	}
	if d := now.OOMKills - w.mark.OOMKills; d > 0 {
		recs = append(recs, observers.Record{
			Kind: observers.KindLimit, Observer: "limits", Time: at, Token: token,
			Summary: fmt.Sprintf("%d processes killed for going past the memory limit (%d MiB)", d, w.o.MaxMemory>>20),
			Data:    map[string]string{observers.KeyLimit: "memory", observers.KeyCount: strconv.FormatInt(d, 10), observers.KeyMax: strconv.FormatInt(w.o.MaxMemory, 10)},
		})
	}
	return recs
}
