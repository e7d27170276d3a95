package serverlog

import (
	"bytes"
	"sync"
)

// DefaultCapacity is the ring size New uses when given a capacity <= 0.
const DefaultCapacity = 1 << 20

// Log is a ring of the most recent bytes written to it. The zero value is not
// usable; call New.
type Log struct {
	mu       sync.Mutex
	capacity int
	buf      []byte // grows up to capacity, then wraps
	start    int    // index in buf of the oldest byte held
	full     bool   // buf has reached capacity and is used as a ring
	total    int64  // bytes ever written
	before   byte   // the byte just before the oldest one held, once any was dropped
}

// New returns a Log that holds the most recent capacity bytes
// (DefaultCapacity when capacity <= 0). Memory grows with use up to capacity.
func New(capacity int) *Log {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	return &Log{capacity: capacity}
}

// Write appends p, dropping the oldest bytes when the ring is full. It never
// blocks on the reader side and never fails.
func (l *Log) Write(p []byte) (int, error) {
	n := len(p)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total += int64(n)
	if !l.full {
		room := l.capacity - len(l.buf)
		if len(p) < room {
			l.grow(len(p))
			l.buf = append(l.buf, p...)
			return n, nil
		}
		l.grow(room)
		l.buf = append(l.buf, p[:room]...)
		l.full = true
		p = p[room:]
	}
	l.overwrite(p)
	return n, nil
}

// grow makes room for k more bytes without exceeding capacity.
func (l *Log) grow(k int) {
	need := len(l.buf) + k
	if need <= cap(l.buf) {
		return
	}
	size := max(2*cap(l.buf), need, 512)
	size = min(size, l.capacity)
	b := make([]byte, len(l.buf), size)
	copy(b, l.buf)
	l.buf = b
}

// overwrite writes p over the oldest bytes of the full ring.
func (l *Log) overwrite(p []byte) {
	if len(p) == 0 {
		return
	}
	c := l.capacity
	if len(p) >= c {
		if len(p) > c {
			l.before = p[len(p)-c-1]
		} else {
			l.before = l.buf[(l.start+c-1)%c] // the newest byte held so far
		}
		copy(l.buf, p[len(p)-c:])
		l.start = 0
		return
	}
	l.before = l.buf[(l.start+len(p)-1)%c] // the last byte overwritten
	k := copy(l.buf[l.start:], p)
	copy(l.buf, p[k:])
	l.start = (l.start + len(p)) % c
}

// Bytes returns a copy of the bytes held, oldest first.
func (l *Log) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held()
}

func (l *Log) held() []byte {
	out := make([]byte, 0, len(l.buf))
	out = append(out, l.buf[l.start:]...)
	return append(out, l.buf[:l.start]...)
}

// Tail returns the last n bytes held. When those bytes begin in the middle of
// a line and contain a later line start, the partial first line is left out.
func (l *Log) Tail(n int) string {
	if n <= 0 {
		return ""
	}
	l.mu.Lock()
	all := l.held()
	dropped := l.total > int64(len(all))
	before := l.before
	l.mu.Unlock()

	if n >= len(all) {
		if !dropped {
			return string(all) // the stream's own start is a line start
		}
		return string(fromLineStart(all, before))
	}
	tail := all[len(all)-n:]
	return string(fromLineStart(tail, all[len(all)-n-1]))
}

// fromLineStart drops the partial line at the start of b, given the byte that
// preceded b, when a complete line start follows it.
func fromLineStart(b []byte, prev byte) []byte {
	if prev == '\n' {
		return b
	}
	i := bytes.IndexByte(b, '\n')
	if i < 0 || i == len(b)-1 {
		return b
	}
	return b[i+1:]
}

// Total returns the number of bytes ever written.
func (l *Log) Total() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// Lost returns the number of bytes dropped to stay within capacity
// (Total minus the bytes held).
func (l *Log) Lost() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total - int64(len(l.buf))
}
