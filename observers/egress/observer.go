package egress

import (
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/sealmark/sealmark/internal/seccomp"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/observers/internal/ledger"
)

// Bounds of an Observer.
const (
	// MaxRecords is how many records an Observer holds that no Collect
	// returned yet; past it new records are dropped and counted, and a
	// loss record says so.
	MaxRecords = 4096
	// closeWait bounds how long Close waits for the supervisor and for
	// abandoned reads to return.
	closeWait = 2 * time.Second
)

// Observer answers the seccomp notifications of a server's process tree:
// it records every destination, every exec, every open for writing and
// every signal to another process, lets through what the policy allows
// (and every exec, open and signal) and denies the rest. It is safe for
// concurrent use.
type Observer struct {
	sup seccomp.Supervisor // the notification loop that answers the server's calls

	book *ledger.Ledger // the records no Collect returned yet, by probe

	mu     sync.Mutex
	token  string // the open probe, "" when none is
	losses []observers.Record
	closed bool
	counts Counts
	recent []observers.Record // the last maxRecent records, for a start that failed
}

// maxRecent is how many of the latest records Recent returns.
const maxRecent = 32

// Recent returns copies of the latest records (at most 32), oldest first,
// whether or not a Collect returned them: what a failed start's message
// quotes.
func (o *Observer) Recent() []observers.Record {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]observers.Record(nil), o.recent...)
}

// Counts are an Observer's running totals.
type Counts struct {
	Allowed int64 // calls let through
	Denied  int64 // calls denied
	Stale   int64 // notifications whose caller went away before the answer
	Dropped int64 // records dropped past MaxRecords
}

// Name returns "egress".
func (o *Observer) Name() string { return "egress" }

// Begin opens the probe token: what the server does from now until the
// next Begin or Close is attributed to it (by time).
func (o *Observer) Begin(token string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.closed {
		o.token = token
		o.book.Begin(token)
	}
}

// Collect returns the records attributed to token that no Collect returned
// yet, with a loss record when some were dropped.
func (o *Observer) Collect(token string) []observers.Record { return o.book.Collect(token) }

// Close stops answering (from now on the server's filtered calls fail
// with ENOSYS: the filter fails closed), and returns every record no
// Collect returned, with the loss records.
func (o *Observer) Close() []observers.Record {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return nil
	}
	o.closed = true
	o.token = ""
	o.mu.Unlock()

	var problems []string
	if o.sup != nil {
		problems = o.sup.Stop(closeWait)
	}

	o.mu.Lock()
	defer o.mu.Unlock()
	for _, p := range problems {
		o.losses = append(o.losses, o.record(observers.KindLoss, p, map[string]string{observers.KeyOp: "loss"}))
	}
	out := append(o.book.Close(), o.losses...)
	o.losses = nil
	return out
}

// Counts returns the running totals.
func (o *Observer) Counts() Counts {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := o.counts
	c.Dropped = o.book.Dropped()
	return c
}

// Add keeps a record attributed to the open probe (to none when
// unattributed); past MaxRecords it is counted as dropped and a loss
// record says so at Collect.
func (o *Observer) Add(kind, summary string, data map[string]string, unattributed bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	r := o.record(kind, summary, data)
	if unattributed {
		r.Token = ""
		delete(r.Data, "attributed")
	}
	o.book.Add(r)
	if len(o.recent) == maxRecent {
		o.recent = append(o.recent[:0], o.recent[1:]...)
	}
	o.recent = append(o.recent, r)
}

// Count adds one answered call to the totals.
func (o *Observer) Count(allowed bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if allowed {
		o.counts.Allowed++
	} else {
		o.counts.Denied++
	}
}

// Stale counts a notification whose caller went away before the answer.
func (o *Observer) Stale() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.counts.Stale++
}

// Loss keeps a loss record for Close (at most MaxRecords of them).
func (o *Observer) Loss(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.losses) < MaxRecords {
		o.losses = append(o.losses, o.record(observers.KindLoss, fmt.Sprintf(format, args...), map[string]string{observers.KeyOp: "loss"}))
	}
}

// record builds a record attributed to the open probe. o.mu is held.
func (o *Observer) record(kind, summary string, data map[string]string) observers.Record {
	if o.token != "" {
		data[observers.KeyAttributed] = "time"
	}
	return observers.Record{Kind: kind, Observer: o.Name(), Time: time.Now(), Token: o.token, Summary: summary, Data: data}
}

var (
	_ observers.Observer = (*Observer)(nil)
	_ seccomp.Sink       = (*Observer)(nil)
)

// New returns an Observer with no notification loop yet: give it to
// seccomp.Supervise (or contain's Handoff.Complete) as the sink, then
// Attach the loop it returns, so that Close stops it.
func New() *Observer { return &Observer{book: ledger.New("egress", MaxRecords, 0, 1)} }

// Attach gives the Observer the loop that feeds it; Close stops it.
func (o *Observer) Attach(sup seccomp.Supervisor) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sup = sup
}

// Take starts an Observer through complete (contain's Handoff.Complete,
// bound to its pid and policy), which hands it the loop's records from the
// first call on; it returns nil, nil when complete starts no loop.
func Take(complete func(sink seccomp.Sink) (seccomp.Supervisor, error)) (*Observer, error) {
	o := New()
	sup, err := complete(o)
	if err != nil || sup == nil {
		return nil, err
	}
	o.Attach(sup)
	return o, nil
}

// Supervise answers the seccomp listener fd with policy allow (nil means
// seccomp.Loopback) and returns the Observer that records what it saw:
// seccomp.Supervise with a new Observer attached.
func Supervise(fd int, allow func(addr net.Addr) bool) *Observer {
	o := New()
	o.Attach(seccomp.Supervise(fd, allow, o))
	return o
}
