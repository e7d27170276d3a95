package ledger

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClean(t *testing.T) {
	assert.Equal(t, `a\x00b\x1b[31mé\xff`, Clean("a\x00b\x1b[31mé\xff", 100))
	assert.Equal(t, "abc…", Clean("abcdef", 3))
	assert.Equal(t, `\u2028`, Clean("\u2028", 100))
}
