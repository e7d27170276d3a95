package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// Raw answers matched by id. Every raw line the harness writes is entered
// in a ledger shared by the probes of one start, with the ids its answer
// may carry. Each response on stdout that answers none of the session's
// requests is taken, once, as the answer of one line:
//
//   - a response with the id of a line answers that line, whenever it comes
//     (a server may answer concurrently, later lines first);
//   - an array answers the latest batch written before it;
//   - a response with id null (or none) answers the line just written when
//     JSON-RPC allows it that answer (a line whose id cannot be read), and
//     else the earliest such line still without an answer;
//   - a response with a line's id in another type ("7" for 7) answers
//     that line;
//   - any other response (a wrong id) answers the line just written if it
//     has no answer yet, and else the earliest line still awaited.
//
// A correct server's answers are thus always its lines' own, in whatever
// order they come; only a response with a wrong id is ever charged to a
// line, and one response is never charged twice. A line without an answer
// is awaited (settle) until its barrier has been answered and a grace
// after that has passed, or the call timeout since its write, whichever
// comes first. The grace is four times the slowest barrier round trip of
// the start, at least minGrace: a server that answers concurrently answers
// a line its reader has already passed within a few round trips of the
// barrier, and under load its round trips grow with the grace; a server
// that drops a line (as the TypeScript SDK does with unparsable input on
// stdio) costs the grace, not the call timeout.

const ledgerKey = "core.raw-ledger"

// maxAnswers bounds the answers kept for one line: a server may repeat an
// answer without end; the first ones are what the probes judge.
const maxAnswers = 16

// minGrace is the least a line is awaited past its barrier's answer.
const minGrace = 500 * time.Millisecond

// graceRounds is how many of the slowest barrier round trips a line is
// awaited past its barrier's answer.
const graceRounds = 4

// rawRequest is a line the harness writes raw, and what may answer it.
type rawRequest struct {
	line string
	ids  []json.RawMessage // the ids an answer to it carries
	// null: an answer with id null (or none) may be its answer, as JSON-RPC
	// answers a line whose id it cannot read.
	null bool
	// batch: a JSON array may be its answer.
	batch bool
	// invalid: deliberately not a valid request; its answers are the
	// sending probe's alone to judge (wire-messages leaves them alone).
	invalid bool
}

// sent is a raw line written to the server and the answers taken as its.
type sent struct {
	rawRequest
	from    int       // the sequence number the first frame after the write got
	at      time.Time // when it was written
	answers []message // in arrival order
	closed  bool      // no longer awaited (settled, or written without a wait)
	// barred: when the barrier written after the line was answered (zero
	// when none was); from then on the line is awaited for the grace.
	barred time.Time
}

// done reports whether the line has its answer: any answer, and for a
// batch an array, a rejection of the whole batch or an answer to each id.
func (s *sent) done() bool {
	if !s.batch {
		return len(s.answers) > 0
	}
	var got []json.RawMessage
	for _, m := range s.answers {
		if m.batch != nil || !slices.ContainsFunc(s.ids, func(id json.RawMessage) bool { return idEqual(id, m.id()) }) {
			return true
		}
		if !slices.ContainsFunc(got, func(id json.RawMessage) bool { return idEqual(id, m.id()) }) {
			got = append(got, m.id())
		}
	}
	return len(got) >= len(s.ids)
}

// rawLedger is every raw line of one start and who answered what.
type rawLedger struct {
	lines []*sent
	next  int           // the first frame not yet scanned
	owner map[int]*sent // frame sequence number → the line it answers
	// slowest is the slowest barrier round trip of the start.
	slowest time.Duration
}

// grace is how long a line is awaited past its barrier's answer.
func (l *rawLedger) grace(limit time.Duration) time.Duration {
	return min(max(graceRounds*l.slowest, minGrace), limit)
}

func ledgerOf(p *packs.Pass) *rawLedger {
	l, _ := p.Shared[ledgerKey].(*rawLedger)
	if l == nil {
		l = &rawLedger{owner: map[int]*sent{}}
		p.Shared[ledgerKey] = l
	}
	return l
}

// scan takes the frames that arrived since the last scan as answers.
func (l *rawLedger) scan(p *packs.Pass) {
	for _, f := range p.Server.Frames(l.next) {
		l.next = f.Seq + 1
		if (f.Kind != "json" && f.Kind != "oversize") || p.Server.Describe(f) != "" {
			continue // an oversize answer is an answer, its start read by parse
		}
		m := parse(f)
		if m.batch == nil && (m.fields == nil || m.fields["method"] != nil) {
			continue // not a response
		}
		if s := l.take(m); s != nil {
			if len(s.answers) < maxAnswers {
				s.answers = append(s.answers, m)
			}
			l.owner[f.Seq] = s
		}
	}
}

// take picks the line a response answers, by the rules above, or nil.
func (l *rawLedger) take(m message) *sent {
	// The lines written before the response arrived.
	n := 0
	for n < len(l.lines) && l.lines[n].from <= m.frame.Seq {
		n++
	}
	if n == 0 {
		return nil
	}
	before := l.lines[:n]
	current := before[n-1]
	earliest := func(ok func(*sent) bool) *sent {
		if i := slices.IndexFunc(before, ok); i >= 0 {
			return before[i]
		}
		return nil
	}
	id := bytes.TrimSpace(m.id())
	null := len(id) == 0 || string(id) == "null"
	switch {
	case m.batch != nil:
		for i := n - 1; i >= 0; i-- {
			if before[i].batch {
				return before[i]
			}
		}
	case !null:
		mine := func(s *sent) bool {
			return slices.ContainsFunc(s.ids, func(want json.RawMessage) bool { return idEqual(want, id) })
		}
		if s := earliest(func(s *sent) bool { return mine(s) && !s.done() }); s != nil {
			return s
		}
		for i := n - 1; i >= 0; i-- {
			if mine(before[i]) {
				return before[i] // a second answer to the same line
			}
		}
		// A line's id in another type ("7" for 7) answers that line.
		if s := earliest(func(s *sent) bool {
			return !s.done() && slices.ContainsFunc(s.ids, func(want json.RawMessage) bool { return sameText(want, id) })
		}); s != nil {
			return s
		}
	default:
		if current.null && !current.done() {
			return current
		}
		if s := earliest(func(s *sent) bool { return s.null && !s.done() }); s != nil {
			return s
		}
	}
	// A wrong id (or an answer no line may get): charged to the line just
	// written, or to the earliest one still awaited.
	if !current.done() {
		return current
	}
	return earliest(func(s *sent) bool { return !s.closed && !s.done() })
}

// answersInvalid reports whether a frame was taken as the answer of one of the
// harness's deliberately invalid lines, which their probes judge.
func (l *rawLedger) answersInvalid(f packs.Frame) bool {
	s := l.owner[f.Seq]
	return s != nil && s.invalid
}

// write writes r's line to the server's stdin and enters it in the ledger.
func write(p *packs.Pass, r rawRequest) (*sent, error) {
	from := frameMark(p)
	at := time.Now()
	if err := p.Server.WriteRaw([]byte(r.line + "\n")); err != nil {
		if p.Server.Transport() != "stdio" {
			return nil, fmt.Errorf("%w: %v", errNoRaw, err)
		}
		// A write that fails on stdio is a server that stopped reading.
		if !p.Server.Alive() || p.Server.WaitExit(shortWait(p)) {
			return nil, fmt.Errorf("%w (%s)", errExited, exitOf(p))
		}
		return nil, fmt.Errorf("%w: writing to its stdin: %v", errStalled, err)
	}
	return enter(p, r, from, at), nil
}

// enter enters a line written at at, before the frame numbered from, in
// the ledger. A probe that awaits the answer itself (or none) closes it.
func enter(p *packs.Pass, r rawRequest, from int, at time.Time) *sent {
	l := ledgerOf(p)
	s := &sent{rawRequest: r, from: from, at: at}
	l.lines = append(l.lines, s)
	return s
}

// exchange writes r's line, then a barrier, and returns the line with the
// answers that came by the barrier's answer. The barrier shows that the
// server still reads and answers, so that a server that broke on the line
// is told at once; an answer that is still to come is settle's to await.
func exchange(p *packs.Pass, r rawRequest) (*sent, error) {
	s, err := write(p, r)
	if err != nil {
		return nil, err
	}
	sentAt := time.Now()
	if err := barrier(p); err != nil {
		return nil, err
	}
	l := ledgerOf(p)
	s.barred = time.Now()
	l.slowest = max(l.slowest, s.barred.Sub(sentAt))
	l.scan(p)
	return s, nil
}

// settle waits until each of lines has its answer, or the grace past its
// barrier's answer, or the call timeout since its write has passed,
// whichever comes first, and then stops
// awaiting them: an answer that comes later is still taken as theirs (by
// id, or a null one as the earliest unanswered line's), never charged to
// another line.
//
// Once every line still awaited has had its barrier answered, the grace
// left is a ceiling, not a wait: when the server's tree is idle with
// nothing due within it (Pass.WaitIdle) and a second barrier's answer, which
// follows whatever the server wrote before it, brought nothing, no answer
// is still to come and the lines stop being awaited.
func settle(p *packs.Pass, lines ...*sent) {
	l := ledgerOf(p)
	for tried := false; ; {
		l.scan(p)
		waiting, barred, left := false, true, time.Duration(0)
		for _, s := range lines {
			if !s.done() && s.awaited(l, p.CallTimeout) {
				waiting = true
				if s.barred.IsZero() {
					barred = false
				} else {
					left = max(left, l.grace(p.CallTimeout)-time.Since(s.barred))
				}
			}
		}
		if !waiting || p.Ctx.Err() != nil || !p.Server.Alive() {
			break
		}
		if barred && !tried && left > 0 {
			tried = true
			if p.WaitIdle(left) && barrier(p) == nil {
				l.scan(p)
				break
			}
			continue
		}
		time.Sleep(10 * time.Millisecond)
	}
	l.scan(p) // what a server wrote before it exited
	for _, s := range lines {
		s.closed = true
	}
}

// awaited reports whether the line is still awaited: within the call
// timeout since its write and, once its barrier was answered, within the
// grace since then.
func (s *sent) awaited(l *rawLedger, timeout time.Duration) bool {
	if time.Since(s.at) >= timeout {
		return false
	}
	return s.barred.IsZero() || time.Since(s.barred) < l.grace(timeout)
}

// idEqual reports whether two JSON ids are the same: sameID for strings
// and numbers, and equal JSON for an object or an array (an id only the
// harness's invalid requests send).
func idEqual(a, b json.RawMessage) bool {
	if sameID(a, b) {
		return true
	}
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if len(a) == 0 || len(b) == 0 || (a[0] != '{' && a[0] != '[') {
		return false
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// sameText reports whether two JSON ids read the same once a string's
// quotes are taken off: 7 and "7".
func sameText(a, b json.RawMessage) bool {
	unquote := func(r json.RawMessage) string {
		var s string
		if json.Unmarshal(r, &s) == nil {
			return s
		}
		return string(bytes.TrimSpace(r))
	}
	return unquote(a) == unquote(b)
}

// ids is the list of JSON ids of a rawRequest.
func ids(list ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(list))
	for i, id := range list {
		out[i] = json.RawMessage(id)
	}
	return out
}
