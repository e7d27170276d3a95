package sockets

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/observers/internal/ledger"
)

// maxReported bounds the listeners an Observer remembers; past it, new ones
// are dropped with a loss record.
const maxReported = 4096

// EgressNotObserved is the Summary of the record Close adds while no
// containment layer watches outbound connections.
const EgressNotObserved = "attempted egress is not observed on this run (no seccomp layer)"

// maxRecords bounds the records kept for Collect: every listener once,
// and the losses.
const maxRecords = maxReported + 8

// Observer reports the listeners of a process tree, each once. It is safe
// for concurrent use.
type Observer struct {
	pids func() []int

	mu      sync.Mutex
	token   string // the open probe, "" when none is
	seen    map[uint64]bool
	knocked int            // listeners spoken to (knock.go)
	book    *ledger.Ledger // the records no Collect returned yet, by probe
	lost    map[string]bool
	closed  bool
}

// New returns an Observer of the listeners held by the processes pids
// returns when it is called (at Begin, Collect and Close); the engine passes
// the process observer's PIDs. A nil pids checks nothing.
func New(pids func() []int) *Observer {
	return &Observer{pids: pids, seen: map[uint64]bool{}, lost: map[string]bool{}, book: ledger.New("sockets", maxRecords, 0, 1)}
}

// Name returns "sockets".
func (o *Observer) Name() string { return "sockets" }

// Begin checks the tree, so listeners opened before the probe are not
// attributed to it, then opens the probe token. A probe stays open until the
// next Begin or Close: a listener that appears after the probe's last
// Collect is attributed to it (by time) and returned by Close.
func (o *Observer) Begin(token string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	o.check()
	o.token = token
	o.book.Begin(token)
}

// Collect checks the tree and returns the listeners attributed to token that
// no Collect returned yet.
func (o *Observer) Collect(token string) []observers.Record {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	o.check()
	return o.book.Collect(token)
}

// Close checks the tree a last time and returns every record no Collect
// returned, with the record saying attempted egress is not observed.
func (o *Observer) Close() []observers.Record {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	o.check()
	o.token = ""
	o.closed = true
	o.book.Add(o.record(observers.KindSocket, EgressNotObserved, map[string]string{observers.KeyOp: "egress-not-observed"}))
	return o.book.Close()
}

// check records listeners not reported yet. o.mu is held.
func (o *Observer) check() {
	if o.pids == nil {
		return
	}
	pids := o.pids()
	if len(pids) == 0 {
		return
	}
	ls, err := Listeners(pids)
	if errors.Is(err, errors.ErrUnsupported) {
		o.lossOnce("unsupported", "listening sockets are not observed on this platform (no /proc)")
		return
	}
	if err != nil {
		for _, e := range strings.Split(err.Error(), "\n") {
			o.lossOnce(e, "listening sockets: %s", e)
		}
	}
	for _, l := range ls {
		if o.seen[l.Inode] {
			continue
		}
		if len(o.seen) >= maxReported {
			o.lossOnce("full", "more than %d listeners: later ones are not reported", maxReported)
			return
		}
		o.seen[l.Inode] = true
		data := map[string]string{
			observers.KeyOp:    "listen",
			observers.KeyProto: l.Proto,
			observers.KeyAddr:  l.Addr,
			observers.KeyPort:  strconv.Itoa(l.Port),
			observers.KeyPid:   strconv.Itoa(l.PID),
			observers.KeyInode: strconv.FormatUint(l.Inode, 10),
			observers.KeyScope: l.Scope(),
		}
		sum := summary(l)
		if o.knocked < maxKnocked {
			o.knocked++
			sv := Knock(l) // knock.go: over loopback only, bounded
			data[observers.KeyServes] = sv.String()
			data[observers.KeyHTTP] = strconv.FormatBool(sv.HTTP)
			data[observers.KeyOpen] = strconv.FormatBool(sv.HTTP && sv.Open)
			sum += "; serves " + sv.String()
		} else {
			data[observers.KeyServes] = fmt.Sprintf("not spoken to: more than %d listeners", maxKnocked)
		}
		o.book.Add(o.record(observers.KindSocket, sum, data))
	}
}

// summary is "pid 123 listens on 0.0.0.0:8080 (all interfaces)"; a UDP
// socket says "udp".
func summary(l Listening) string {
	where := net.JoinHostPort(l.Addr, strconv.Itoa(l.Port))
	if strings.HasPrefix(l.Proto, "udp") {
		where = "udp " + where
	}
	scope := "not loopback"
	switch {
	case l.Loopback:
		scope = "loopback"
	case l.AllInterfaces:
		scope = "all interfaces"
	}
	return fmt.Sprintf("pid %d listens on %s (%s)", l.PID, where, scope)
}

// record builds a record attributed to the open probe. o.mu is held.
func (o *Observer) record(kind, summary string, data map[string]string) observers.Record {
	if o.token != "" {
		data[observers.KeyAttributed] = "time"
	}
	return observers.Record{Kind: kind, Observer: o.Name(), Time: time.Now(), Token: o.token, Summary: summary, Data: data}
}

// lossOnce records a loss the first time key is seen. o.mu is held.
func (o *Observer) lossOnce(key, format string, args ...any) {
	if o.lost[key] || len(o.lost) >= maxReported {
		return
	}
	o.lost[key] = true
	o.book.Add(o.record(observers.KindLoss, fmt.Sprintf(format, args...), map[string]string{observers.KeyOp: "loss"}))
}

var _ observers.Observer = (*Observer)(nil)
