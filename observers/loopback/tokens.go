package loopback

import "bytes"

// prefixLen is how many leading bytes of a token index it, so finding the
// registered tokens in a request costs one map look-up per byte whatever the
// number of tokens.
const prefixLen = 4

// tokenSet holds the most recent tokens passed to Begin, oldest evicted
// first, and finds which of them occur in a byte string.
type tokenSet struct {
	max      int
	ring     []string // insertion order; ring[next] is the oldest once full
	next     int
	seq      uint64
	seqOf    map[string]uint64 // registration order: a later Begin is larger
	byPrefix map[[prefixLen]byte][]string
	short    []string // tokens shorter than prefixLen, searched one by one
}

func newTokenSet(max int) *tokenSet {
	return &tokenSet{
		max:      max,
		seqOf:    make(map[string]uint64),
		byPrefix: make(map[[prefixLen]byte][]string),
	}
}

// add registers tok (again), evicting the oldest token when full. An empty
// token is never registered: it would occur everywhere.
func (s *tokenSet) add(tok string) {
	if tok == "" || s.max <= 0 {
		return
	}
	s.seq++
	if _, ok := s.seqOf[tok]; ok {
		s.seqOf[tok] = s.seq // seen again: it is now the newest
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
	if len(tok) < prefixLen {
		s.short = append(s.short, tok)
		return
	}
	k := prefixOf(tok)
	s.byPrefix[k] = append(s.byPrefix[k], tok)
}

func (s *tokenSet) remove(tok string) {
	delete(s.seqOf, tok)
	if len(tok) < prefixLen {
		s.short = without(s.short, tok)
		return
	}
	k := prefixOf(tok)
	if rest := without(s.byPrefix[k], tok); len(rest) > 0 {
		s.byPrefix[k] = rest
	} else {
		delete(s.byPrefix, k)
	}
}

// find returns the registered token that occurs in b; when several do, the
// one most recently passed to Begin. It returns "" when none occurs.
func (s *tokenSet) find(b []byte) string {
	best, bestSeq := "", uint64(0)
	consider := func(tok string) {
		if q := s.seqOf[tok]; q > bestSeq {
			best, bestSeq = tok, q
		}
	}
	if len(s.byPrefix) > 0 {
		var k [prefixLen]byte
		for i := 0; i+prefixLen <= len(b); i++ {
			copy(k[:], b[i:i+prefixLen])
			for _, tok := range s.byPrefix[k] {
				if len(b)-i >= len(tok) && string(b[i:i+len(tok)]) == tok {
					consider(tok)
				}
			}
		}
	}
	for _, tok := range s.short {
		if bytes.Contains(b, []byte(tok)) {
			consider(tok)
		}
	}
	return best
}

func prefixOf(tok string) [prefixLen]byte {
	var k [prefixLen]byte
	copy(k[:], tok)
	return k
}

func without(list []string, tok string) []string {
	for i, t := range list {
		if t == tok {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}
