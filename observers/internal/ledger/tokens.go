package ledger

// tokenSet holds the tokens most recently passed to Begin, oldest evicted
// first, and finds which of them occur in a byte string. Finding costs one
// map look-up per byte for each distinct token length (one, normally),
// whatever the number of tokens and whatever prefix they share.
type tokenSet struct {
	max     int
	ring    []string // insertion order; ring[next] is the oldest once full
	next    int
	seq     uint64
	seqOf   map[string]uint64 // registration order: a later Begin is larger
	lengths map[int]int       // token length -> how many tokens have it
}

func newTokenSet(max int) *tokenSet {
	return &tokenSet{max: max, seqOf: make(map[string]uint64), lengths: make(map[int]int)}
}

// add registers tok, or marks it the newest when registered already. The
// oldest token is evicted when the set is full. An empty token is never
// registered: it would occur everywhere.
func (s *tokenSet) add(tok string) {
	if tok == "" || s.max <= 0 {
		return
	}
	s.seq++
	if _, ok := s.seqOf[tok]; ok {
		s.seqOf[tok] = s.seq
		return
	}
	if len(s.ring) < s.max {
		s.ring = append(s.ring, tok)
	} else {
		s.remove(s.ring[s.next])
		s.ring[s.next] = tok
		s.next = (s.next + 1) % s.max
	}
	s.seqOf[tok] = s.seq
	s.lengths[len(tok)]++
}

func (s *tokenSet) remove(tok string) {
	delete(s.seqOf, tok)
	if s.lengths[len(tok)]--; s.lengths[len(tok)] == 0 {
		delete(s.lengths, len(tok))
	}
}

// find returns the registered token that occurs in b; when several do, the
// one most recently passed to Begin. It returns "" when none occurs.
func (s *tokenSet) find(b []byte) string {
	best, bestSeq := "", uint64(0)
	for n := range s.lengths {
		for i := 0; i+n <= len(b); i++ {
			if q, ok := s.seqOf[string(b[i:i+n])]; ok && q > bestSeq {
				best, bestSeq = string(b[i:i+n]), q
			}
		}
	}
	return best
}
