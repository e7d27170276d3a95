package launch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync/atomic"
)

// framer splits the server's stdout into frames, records every one, and
// forwards the JSON ones, each followed by "\n", to out.
type framer struct {
	frames     *frameLog
	out        *io.PipeWriter
	maxLine    int
	maxMessage int // an oversize line up to this long is still held and, when JSON, forwarded

	line     []byte // the current line, up to maxMessage+1 bytes (its prefix once cut)
	size     int64  // the current line's length so far
	over     bool   // the current line passed maxLine
	cut      bool   // the current line passed maxMessage: only its prefix is held
	last     byte   // the current line's last byte
	forward  bool   // out still accepts frames
	reusable int    // largest line buffer kept between lines
	told     bool   // onCut was called for the current line
	onCut    *cutHandler
}

const readBuffer = 64 << 10

func newFramer(frames *frameLog, out *io.PipeWriter, maxLine, maxMessage int, onCut *cutHandler) *framer {
	return &framer{frames: frames, out: out, maxLine: maxLine, maxMessage: max(maxLine, maxMessage), forward: true, reusable: readBuffer, onCut: onCut}
}

// run reads r until EOF or an error, then records any unterminated last line
// and closes out.
func (f *framer) run(r io.Reader) {
	br := bufio.NewReaderSize(counted{r, &f.frames.read}, readBuffer)
	var at int64 // bytes of stdout taken so far
	for {
		chunk, err := br.ReadSlice('\n')
		at += int64(len(chunk))
		switch {
		case err == nil:
			f.take(chunk[:len(chunk)-1])
			f.emit()
			f.frames.ended.Store(at)
		case errors.Is(err, bufio.ErrBufferFull):
			f.take(chunk)
		default:
			f.take(chunk)
			if f.size > 0 {
				f.emit()
			}
			f.out.Close()
			return
		}
	}
}

// counted is a reader that adds the bytes it reads to n, so the bytes
// bufio holds before a newline comes count too.
type counted struct {
	r io.Reader
	n *atomic.Int64
}

func (c counted) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// take adds part of a line. Past maxLine+1 bytes (room for a "\r" before
// the "\n") the line is oversize; it is still held whole up to maxMessage+1
// bytes, and past that only its first oversizeKeep bytes are kept.
func (f *framer) take(b []byte) {
	if len(b) == 0 {
		return
	}
	f.size += int64(len(b))
	f.last = b[len(b)-1]
	if f.size > int64(f.maxLine+1) {
		f.over = true
	}
	if !f.cut && len(f.line)+len(b) > f.maxMessage+1 {
		f.cut = true
		if len(f.line) > oversizeKeep {
			f.line = f.line[:oversizeKeep]
		}
	}
	if f.cut {
		if room := oversizeKeep - len(f.line); room > 0 {
			f.line = append(f.line, b[:min(room, len(b))]...)
		}
		// Told now, not when the line ends: a line that never ends must
		// not keep the request it answers waiting.
		f.tell()
		return
	}
	if need := len(f.line) + len(b); need > cap(f.line) {
		// Double rather than let append grow by a quarter: a line near
		// maxLine then costs about twice its size in allocations, not five.
		grown := make([]byte, len(f.line), min(max(2*cap(f.line), need, 512), f.maxMessage+1))
		copy(grown, f.line)
		f.line = grown
	}
	f.line = append(f.line, b...)
}

// emit records the current line as a frame and starts the next one.
func (f *framer) emit() {
	line, size := f.line, f.size
	if f.last == '\r' {
		size--
		if int64(len(line)) > size {
			line = line[:size]
		}
	}
	kind, whole := Oversize, []byte(nil)
	switch {
	case !f.over && size <= int64(f.maxLine):
		kind = classify(line)
	case !f.cut && size <= int64(f.maxMessage) && json.Valid(line):
		// Oversize, and recorded so, but held whole: the message it
		// carries (a tool list padded past the limit) is still read.
		whole = line
	case !f.cut && size <= int64(f.maxMessage) && nestsPast(line, MaxDepth):
		kind = TooDeep
	}
	if kind == Garbage && nestsPast(line, MaxDepth) {
		kind = TooDeep
	}
	if kind == TooDeep {
		// No decoder reads it, so the request it answers would wait out
		// its timeout: told like a cut line.
		f.told = true
		if fn := f.onCut.get(); fn != nil {
			fn(Cut{Head: bytes.Clone(line[:min(len(line), oversizeKeep)]), Limit: f.maxMessage, Depth: MaxDepth})
		}
	}
	if (kind == Oversize || kind == TooDeep) && len(line) > oversizeKeep {
		line = line[:oversizeKeep]
	}
	if kind == Oversize && size > int64(f.maxMessage) {
		f.tell() // one maxMessage+1 bytes long, not ending in "\r", is never cut
	}
	data := make([]byte, len(line), len(line)+1)
	copy(data, line)
	f.frames.add(kind, data, size)
	if kind == JSON && f.forward {
		if _, err := f.out.Write(append(data, '\n')); err != nil {
			f.forward = false // the reader is gone; keep recording
		}
	}
	if whole != nil && f.forward {
		if _, err := f.out.Write(append(whole, '\n')); err != nil {
			f.forward = false
		}
	}
	if cap(f.line) > f.reusable {
		f.line = nil
	} else {
		f.line = f.line[:0]
	}
	f.size, f.over, f.cut, f.last, f.told = 0, false, false, 0, false
}

// tell calls the cut handler, once per line, with the current line's head.
func (f *framer) tell() {
	if f.told {
		return
	}
	f.told = true
	if fn := f.onCut.get(); fn != nil {
		fn(Cut{Head: bytes.Clone(f.line[:min(len(f.line), oversizeKeep)]), Limit: f.maxMessage})
	}
}

// nestsPast reports whether line opens more than limit arrays or objects
// at once, outside strings: the nesting JSON decoders refuse.
func nestsPast(line []byte, limit int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range line {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > limit {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

func classify(line []byte) FrameKind {
	switch {
	case len(bytes.TrimSpace(line)) == 0:
		return Blank
	case json.Valid(line):
		return JSON
	default:
		return Garbage
	}
}
