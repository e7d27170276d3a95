package loopback

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/sealmark/sealmark/observers"
)

// This file and its twin in the other observer package (loopback, upstream)
// are kept identical apart from the package clause.

// How a record was attributed to a probe, in Data["attributed"].
const (
	byToken = "token" // a registered token occurs in what was received
	byTime  = "time"  // no token occurs: the probe open when it arrived
	byNone  = "none"  // no token occurs and no probe was open
)

// ledger attributes records to probes and keeps them until a Collect or
// Close returns them. It keeps at most maxRecords; what it drops or refuses
// it counts per probe and reports as KindLoss records.
type ledger struct {
	observer   string
	maxRecords int
	maxConns   int // the limit named in a refused-connections loss record

	mu      sync.RWMutex
	tokens  *tokenSet
	open    string                        // the open probe's token, "" when none
	pending map[string][]observers.Record // by token, not yet returned
	kept    int
	dropped map[string]int64 // records over maxRecords, by token
	refused map[string]int64 // connections over maxConns, by token
	closed  bool
}

func newLedger(observer string, maxRecords, maxConns, maxTokens int) *ledger {
	return &ledger{
		observer:   observer,
		maxRecords: maxRecords,
		maxConns:   maxConns,
		tokens:     newTokenSet(maxTokens),
		pending:    make(map[string][]observers.Record),
		dropped:    make(map[string]int64),
		refused:    make(map[string]int64),
	}
}

// begin opens the probe with this token, closing the one open before. An
// empty token opens none.
func (g *ledger) begin(tok string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tokens.add(tok)
	g.open = tok
}

// current returns the open probe's token, "" when none is open.
func (g *ledger) current() string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.open
}

// attribute returns the token a record of b belongs to and how it was
// chosen: a registered token found in b wins (the latest begun when several
// occur), else open, the probe open when b started to arrive.
func (g *ledger) attribute(b []byte, open string) (tok, how string) {
	g.mu.RLock()
	found := g.tokens.find(b)
	g.mu.RUnlock()
	switch {
	case found != "":
		return found, byToken
	case open != "":
		return open, byTime
	}
	return "", byNone
}

// add keeps r for its token, or counts it as dropped when full.
func (g *ledger) add(r observers.Record) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return
	}
	if g.kept >= g.maxRecords {
		g.dropped[r.Token]++
		return
	}
	g.pending[r.Token] = append(g.pending[r.Token], r)
	g.kept++
}

// refuse counts a connection closed unread because too many were open.
func (g *ledger) refuse(tok string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		g.refused[tok]++
	}
}

// collect returns tok's records not yet returned and its loss records.
func (g *ledger) collect(tok string) []observers.Record {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.pending[tok]
	delete(g.pending, tok)
	g.kept -= len(out)
	slices.SortStableFunc(out, byArrival)
	return append(out, g.lossesLocked(tok, time.Now())...)
}

// close returns everything not yet returned, oldest first, then the loss
// records, and keeps nothing more.
func (g *ledger) close() []observers.Record {
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

func (g *ledger) lossesLocked(tok string, now time.Time) []observers.Record {
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

func (g *ledger) loss(tok string, now time.Time, reason string, n int64, limit int, summary string) observers.Record {
	return observers.Record{
		Kind:     observers.KindLoss,
		Observer: g.observer,
		Time:     now,
		Token:    tok,
		Summary:  summary,
		Data: map[string]string{
			"reason": reason,
			"count":  strconv.FormatInt(n, 10),
			"limit":  strconv.Itoa(limit),
		},
	}
}

func byArrival(a, b observers.Record) int { return a.Time.Compare(b.Time) }
