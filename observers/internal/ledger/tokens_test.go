package ledger

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTokenSetFindsTheLatestBegunToken(t *testing.T) {
	s := newTokenSet(10)
	s.add("smtok-one")
	s.add("smtok-two")
	s.add("ab") // another length
	assert.Equal(t, "smtok-one", s.find([]byte("x smtok-one y")))
	assert.Equal(t, "smtok-two", s.find([]byte("smtok-one smtok-two")))
	assert.Equal(t, "ab", s.find([]byte("smtok-one ab")))
	assert.Equal(t, "", s.find([]byte("smtok-on smtok-tw")))
	assert.Equal(t, "", s.find(nil))

	s.add("smtok-one") // begun again: now the latest
	assert.Equal(t, "smtok-one", s.find([]byte("smtok-one smtok-two")))
}

func TestTokenSetEvictsTheOldest(t *testing.T) {
	s := newTokenSet(2)
	s.add("smtok-one")
	s.add("smtok-two")
	s.add("smtok-three")
	assert.Equal(t, "", s.find([]byte("smtok-one")))
	assert.Equal(t, "smtok-two", s.find([]byte("smtok-two")))
	assert.Equal(t, "smtok-three", s.find([]byte("smtok-three")))
	s.add("")
	assert.Equal(t, "smtok-two", s.find([]byte("smtok-two")), "an empty token is not registered")
	assert.Len(t, s.lengths, 2, "lengths of evicted tokens are forgotten")
	s.add("smtok-four")
	s.add("smtok-five")
	assert.Equal(t, map[int]int{10: 2}, s.lengths)
}

func BenchmarkTokenSetFind(b *testing.B) {
	s := newTokenSet(4096)
	for i := range 4096 {
		s.add("smtok-" + strconv.FormatInt(1e15+int64(i), 16)) // a shared prefix, one length
	}
	req := []byte("GET /smtok-38d7ea4c68000/x HTTP/1.1\r\nHost: 127.0.0.1:4000\r\nUser-Agent: Go-http-client/1.1\r\n\r\n")
	for b.Loop() {
		if s.find(req) == "" {
			b.Fatal("token not found")
		}
	}
}
