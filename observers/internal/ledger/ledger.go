// Package ledger attributes what the loopback listener and the upstream
// stub receive to probes, by the token found in it or by the probe open
// when it arrived, and keeps the records until a Collect returns them.
//
//	book := ledger.New("loopback", 10000, 64, 4096)
//	book.Begin(token)
//	tok, how := book.Attribute(received, book.Current())
//	book.Add(observers.Record{Token: tok, Data: map[string]string{"attributed": how}})
//	recs := book.Collect(token)
package ledger

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/sealmark/sealmark/observers"
)

// How a record was attributed to a probe, in Data["attributed"].
const (
	ByToken = "token" // a registered token occurs in what was received
	ByTime  = "time"  // no token occurs: the probe open when it arrived
	ByNone  = "none"  // no token occurs and no probe was open
)

// Ledger attributes records to probes and keeps them until a Collect or
// Close returns them. It keeps at most maxRecords; what it drops or refuses
// it counts per probe and reports as KindLoss records.
type Ledger struct {
	observer   string
	maxRecords int
	maxConns   int // the limit named in a refused-connections loss record

	mu         sync.RWMutex
	tokens     *tokenSet
	open       string                        // the open probe's token, "" when none
	pending    map[string][]observers.Record // by token, not yet returned
	kept       int
	dropped    map[string]int64 // records over maxRecords, by token, not yet reported
	droppedAll int64            // records over maxRecords, in all
	refused    map[string]int64 // connections over maxConns, by token
	closed     bool
}

// New returns a Ledger for the named observer with its bounds.
func New(observer string, maxRecords, maxConns, maxTokens int) *Ledger {
	return &Ledger{
		observer:   observer,
		maxRecords: maxRecords,
		maxConns:   maxConns,
		tokens:     newTokenSet(maxTokens),
		pending:    make(map[string][]observers.Record),
		dropped:    make(map[string]int64),
		refused:    make(map[string]int64),
	}
}

// Begin opens the probe with this token, closing the one open before. An
// empty token opens none.
func (g *Ledger) Begin(tok string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tokens.add(tok)
	g.open = tok
}

// Current returns the open probe's token, "" when none is open.
func (g *Ledger) Current() string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.open
}

// Attribute returns the token a record of b belongs to and how it was
// chosen: a registered token found in b wins (the latest begun when several
// occur), else open, the probe open when b started to arrive.
func (g *Ledger) Attribute(b []byte, open string) (tok, how string) {
	g.mu.RLock()
	found := g.tokens.find(b)
	g.mu.RUnlock()
	switch {
	case found != "":
		return found, ByToken
	case open != "":
		return open, ByTime
	}
	return "", ByNone
}

// Add keeps r for its token, or counts it as dropped when full.
func (g *Ledger) Add(r observers.Record) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	if g.kept >= g.maxRecords {
		g.dropped[r.Token]++
		g.droppedAll++
		return
	}
	g.pending[r.Token] = append(g.pending[r.Token], r)
	g.kept++
}

// Refuse counts a connection closed unread because too many were open.
func (g *Ledger) Refuse(tok string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		g.refused[tok]++
	}
}

// Collect returns tok's records not yet returned and its loss records.
func (g *Ledger) Collect(tok string) []observers.Record {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.pending[tok]
	delete(g.pending, tok)
	g.kept -= len(out)
	slices.SortStableFunc(out, byArrival)
	return append(out, g.lossesLocked(tok, time.Now())...)
}

// Close returns everything not yet returned, oldest first, then the loss
// records, and keeps nothing more.
func (g *Ledger) Close() []observers.Record {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil
	}
	g.closed = true
	var out []observers.Record
	for _, tok := range slices.Sorted(maps.Keys(g.pending)) {
		out = append(out, g.pending[tok]...)
	}
	slices.SortStableFunc(out, byArrival)
	now := time.Now()
	toks := slices.Sorted(maps.Keys(g.refused))
	for _, tok := range slices.Sorted(maps.Keys(g.dropped)) {
		if _, ok := g.refused[tok]; !ok {
			toks = append(toks, tok)
		}
	}
	for _, tok := range toks {
		out = append(out, g.lossesLocked(tok, now)...)
	}
	g.pending, g.kept = nil, 0
	return out
}

func (g *Ledger) lossesLocked(tok string, now time.Time) []observers.Record {
	var out []observers.Record
	if n := g.refused[tok]; n > 0 {
		out = append(out, g.loss(tok, now, "connections", n, g.maxConns,
			fmt.Sprintf("refused %d connections past the limit of %d open at once", n, g.maxConns)))
	}
	if n := g.dropped[tok]; n > 0 {
		out = append(out, g.loss(tok, now, "records", n, g.maxRecords,
			fmt.Sprintf("dropped %d records past the limit of %d kept", n, g.maxRecords)))
	}
	delete(g.refused, tok)
	delete(g.dropped, tok)
	return out
}

func (g *Ledger) loss(tok string, now time.Time, reason string, n int64, limit int, summary string) observers.Record {
	return observers.Record{
		Kind:     observers.KindLoss,
		Observer: g.observer,
		Time:     now,
		Token:    tok,
		Summary:  summary,
		Data: map[string]string{
			observers.KeyReason: reason,
			observers.KeyCount:  strconv.FormatInt(n, 10),
			observers.KeyLimit:  strconv.Itoa(limit),
		},
	}
}

func byArrival(a, b observers.Record) int { return a.Time.Compare(b.Time) }

// Refused returns how many connections were refused so far, over all probes.
func (g *Ledger) Refused() int64 {
	g.mu.RLock()
	defer g.mu.RUnlock()
	var n int64
	for _, c := range g.refused {
		n += c
	}
	return n
}

// Dropped returns how many records were dropped so far past maxRecords,
// over all probes, including those already reported.
func (g *Ledger) Dropped() int64 {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.droppedAll
}
