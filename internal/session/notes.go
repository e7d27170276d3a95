package session

import (
	"sync"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// maxNoteMethods bounds how many notification methods a session counts
// by name; the others are counted together under "(other)".
const maxNoteMethods = 32

// noteCounter counts the notifications a server sent in a session, per
// method, with the peak rate of each: O(1) memory however many come
// (core's notification-flood judges them).
type noteCounter struct {
	mu    sync.Mutex
	by    map[string]*packs.NoteCount
	order []string
}

// see counts one notification of method at now.
func (c *noteCounter) see(method string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = map[string]*packs.NoteCount{}
	}
	n := c.by[method]
	if n == nil {
		if len(c.by) >= maxNoteMethods {
			method = "(other)"
			n = c.by[method]
		}
		if n == nil {
			n = &packs.NoteCount{Method: method, First: now}
			c.by[method] = n
			c.order = append(c.order, method)
		}
	}
	n.See(now)
}

// counts returns the counts, in the order the methods first came.
func (c *noteCounter) counts() []packs.NoteCount {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]packs.NoteCount, 0, len(c.order))
	for _, m := range c.order {
		out = append(out, *c.by[m])
	}
	return out
}
