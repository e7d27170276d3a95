package cleanup

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRunNewestFirstOnce(t *testing.T) {
	var order []int
	Add(func() { order = append(order, 1) })
	remove := Add(func() { order = append(order, 2) })
	Add(func() { order = append(order, 3) })
	remove()
	assert.Equal(t, 2, Pending())
	Run()
	Run()
	assert.Equal(t, []int{3, 1}, order, "newest first, removed tasks skipped, nothing twice")
	assert.Zero(t, Pending())
}

func TestAddAfterExitRunsAtOnce(t *testing.T) {
	t.Cleanup(func() {
		mu.Lock()
		closed = false
		mu.Unlock()
	})
	ran := 0
	Add(func() { ran++ })
	Exit()
	assert.Equal(t, 1, ran, "Exit runs what was registered")
	remove := Add(func() { ran++ })
	assert.Equal(t, 2, ran, "a task added after Exit (a start in flight on the signal) runs at once")
	remove()
	assert.Zero(t, Pending())
}
