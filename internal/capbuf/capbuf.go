// Package capbuf is a writer that keeps at most a given number of bytes,
// for a child's output whose size the harness does not control:
//
//	var out capbuf.Buffer
//	out.Max = 4 << 10
//	cmd.Stdout, cmd.Stderr = &out, &out
//	if err := cmd.Run(); err != nil {
//		return fmt.Errorf("%v: %s", err, out.Text())
//	}
//
// It has no ReadFrom (it embeds no bytes.Buffer): io.Copy, which exec.Cmd
// uses to drain a pipe into a writer, would call a ReadFrom and pass the
// bound by.
package capbuf

import (
	"bytes"
	"fmt"
	"strings"
)

// Buffer keeps the first Max bytes written to it and counts the rest.
// Writes never fail. The zero value keeps nothing.
type Buffer struct {
	Max     int
	buf     bytes.Buffer
	dropped int
}

func (b *Buffer) Write(p []byte) (int, error) {
	keep := max(0, min(len(p), b.Max-b.buf.Len()))
	b.buf.Write(p[:keep])
	b.dropped += len(p) - keep
	return len(p), nil
}

// Bytes is what was kept.
func (b *Buffer) Bytes() []byte { return b.buf.Bytes() }

// String is what was kept.
func (b *Buffer) String() string { return b.buf.String() }

// Dropped is how many bytes were written past Max.
func (b *Buffer) Dropped() int { return b.dropped }

// Text is what was kept, trimmed, with a count of what was not.
func (b *Buffer) Text() string {
	s := strings.TrimSpace(b.buf.String())
	if b.dropped > 0 {
		s += fmt.Sprintf(" ... (%d more bytes)", b.dropped)
	}
	return s
}
