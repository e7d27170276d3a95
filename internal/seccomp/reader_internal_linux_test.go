package seccomp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestReaderBoundsBlockedReads(t *testing.T) {
	release := make(chan struct{})
	r := &reader{timeout: 20 * time.Millisecond, fetch: func(int, uint64, int) ([]byte, error) {
		<-release
		return []byte("x"), nil
	}}
	for range maxStuckReads {
		_, err := r.read(1, 1, 1)
		assert.ErrorIs(t, err, errReadTimeout)
	}
	_, err := r.read(1, 1, 1)
	assert.ErrorIs(t, err, errReadsStuck, "past the limit, no read is even tried")
	assert.False(t, r.wait(10*time.Millisecond))
	close(release)
	assert.True(t, r.wait(time.Second))
	assert.EqualValues(t, 0, r.stuck.Load(), "the abandoned reads returned")
	b, err := r.read(1, 1, 1)
	assert.NoError(t, err)
	assert.Equal(t, "x", string(b))
}
