package core

import (
	"testing"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// TestLedgerTake pins which raw line a response is taken as answering.
func TestLedgerTake(t *testing.T) {
	line := func(from int, r rawRequest) *sent { return &sent{rawRequest: r, from: from} }
	resp := func(seq int, data string) message {
		return parse(packs.Frame{Seq: seq, Kind: "json", Data: []byte(data)})
	}
	for _, tc := range []struct {
		name   string
		lines  []rawRequest
		froms  []int
		frames []string // in arrival order, seq 10, 11, ...
		want   []int    // per frame, the index of the line it answers, -1 for none
	}{
		{"answers in reverse order go by id",
			[]rawRequest{{ids: ids(`"a"`)}, {ids: ids(`"b"`)}}, []int{0, 5},
			[]string{`{"id":"b","result":{}}`, `{"id":"a","result":{}}`}, []int{1, 0}},
		{"a number id matches however written",
			[]rawRequest{{ids: ids(`9007199254740991`)}, {ids: ids(`0`)}}, []int{0, 5},
			[]string{`{"id":0.0,"result":{}}`, `{"id":9007199254740991,"result":{}}`}, []int{1, 0}},
		{"a wrong id goes to the line just written",
			[]rawRequest{{ids: ids(`"a"`)}, {ids: ids(`7`)}}, []int{0, 5},
			[]string{`{"id":"a","result":{}}`, `{"id":"zz","result":{}}`}, []int{0, 1}},
		{"an id in another type goes to its line",
			[]rawRequest{{ids: ids(`7`)}, {ids: ids(`-7`)}}, []int{0, 5},
			[]string{`{"id":"-7","result":{}}`, `{"id":"7","result":{}}`}, []int{1, 0}},
		{"a null answer goes to the line just written, then the earliest",
			[]rawRequest{{null: true}, {null: true}, {ids: ids(`"c"`)}}, []int{0, 5, 6},
			[]string{`{"id":null,"error":{"code":-32600,"message":"x"}}`, `{"id":null,"error":{"code":-32600,"message":"x"}}`}, []int{0, 1}},
		{"a null answer to a line that takes none is a wrong one",
			[]rawRequest{{null: true}, {ids: ids(`"b"`)}}, []int{0, 0},
			[]string{`{"id":"b","result":{}}`, `{"id":null,"error":{"code":-32600,"message":"x"}}`}, []int{1, 0}},
		{"an answer nobody awaits is nobody's",
			[]rawRequest{{ids: ids(`"a"`)}}, []int{0},
			[]string{`{"id":"a","result":{}}`, `{"id":"zz","result":{}}`}, []int{0, -1}},
		{"an answer before any line is nobody's",
			[]rawRequest{{ids: ids(`"a"`)}}, []int{20},
			[]string{`{"id":"a","result":{}}`}, []int{-1}},
		{"an array answers the batch",
			[]rawRequest{{ids: ids(`"x"`, `"y"`), null: true, batch: true}, {ids: ids(`"b"`)}}, []int{0, 5},
			[]string{`{"id":"b","result":{}}`, `[{"id":"x","result":{}},{"id":"y","result":{}}]`}, []int{1, 0}},
		{"an object id is matched as JSON",
			[]rawRequest{{ids: ids(`{"sm":"inv-3"}`), null: true}}, []int{0},
			[]string{`{"id":{ "sm" : "inv-3" },"result":{}}`}, []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &rawLedger{owner: map[int]*sent{}}
			for i, r := range tc.lines {
				l.lines = append(l.lines, line(tc.froms[i], r))
			}
			for i, data := range tc.frames {
				m := resp(10+i, data)
				got := -1
				if s := l.take(m); s != nil {
					s.answers = append(s.answers, m)
					for j, c := range l.lines {
						if c == s {
							got = j
						}
					}
				}
				if got != tc.want[i] {
					t.Errorf("%s: taken by line %d, want %d", data, got, tc.want[i])
				}
			}
		})
	}
}

// TestLedgerGrace: a line whose barrier was answered is awaited for four
// of the start's slowest barrier round trips past that answer, at least
// minGrace and at most the call timeout; one without a barrier for the
// call timeout alone.
func TestLedgerGrace(t *testing.T) {
	const timeout = 10 * time.Second
	l := &rawLedger{}
	if got := l.grace(timeout); got != minGrace {
		t.Errorf("grace with no round trip = %v, want the floor %v", got, minGrace)
	}
	l.slowest = time.Second
	if got := l.grace(timeout); got != 4*time.Second {
		t.Errorf("grace after a 1s round trip = %v, want 4s", got)
	}
	l.slowest = time.Minute
	if got := l.grace(timeout); got != timeout {
		t.Errorf("grace after a 1m round trip = %v, want the call timeout", got)
	}
	l.slowest = 0
	now := time.Now()
	fresh := &sent{at: now, barred: now}
	if !fresh.awaited(l, timeout) {
		t.Error("a line whose barrier was just answered is not awaited")
	}
	old := &sent{at: now.Add(-time.Second), barred: now.Add(-time.Second)}
	if old.awaited(l, timeout) {
		t.Error("a line past its grace is still awaited")
	}
	unbarred := &sent{at: now.Add(-time.Second)}
	if !unbarred.awaited(l, timeout) {
		t.Error("a line with no barrier is not awaited for the call timeout")
	}
	if unbarred.awaited(l, 500*time.Millisecond) {
		t.Error("a line past the call timeout is still awaited")
	}
}
