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
