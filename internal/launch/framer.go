package launch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// framer splits the server's stdout into frames, records every one, and
// forwards the JSON ones, each followed by "\n", to out.
type framer struct {
	frames  *frameLog
	out     *io.PipeWriter
	maxLine int

	line     []byte // the current line, up to maxLine+1 bytes (its prefix once oversize)
	size     int64  // the current line's length so far
	over     bool   // the current line passed maxLine
	last     byte   // the current line's last byte
	forward  bool   // out still accepts frames
	reusable int    // largest line buffer kept between lines
}

const readBuffer = 64 << 10

func newFramer(frames *frameLog, out *io.PipeWriter, maxLine int) *framer {
	return &framer{frames: frames, out: out, maxLine: maxLine, forward: true, reusable: readBuffer}
}

// run reads r until EOF or an error, then records any unterminated last line
// and closes out.
func (f *framer) run(r io.Reader) {
	br := bufio.NewReaderSize(r, readBuffer)
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			f.take(chunk[:len(chunk)-1])
			f.emit()
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

// take adds part of a line. It keeps at most maxLine+1 bytes (room for a
// "\r" before the "\n"); past that the line is oversize and only its first
// oversizeKeep bytes are kept.
func (f *framer) take(b []byte) {
	if len(b) == 0 {
		return
	}
	f.size += int64(len(b))
	f.last = b[len(b)-1]
	if !f.over && len(f.line)+len(b) > f.maxLine+1 {
		f.over = true
		if len(f.line) > oversizeKeep {
			f.line = f.line[:oversizeKeep]
		}
	}
	if f.over {
		if room := oversizeKeep - len(f.line); room > 0 {
			f.line = append(f.line, b[:min(room, len(b))]...)
		}
		return
	}
	if need := len(f.line) + len(b); need > cap(f.line) {
		// Double rather than let append grow by a quarter: a line near
		// maxLine then costs about twice its size in allocations, not five.
		grown := make([]byte, len(f.line), min(max(2*cap(f.line), need, 512), f.maxLine+1))
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
	kind := Oversize
	if !f.over && size <= int64(f.maxLine) {
		kind = classify(line)
	} else if len(line) > oversizeKeep {
		line = line[:oversizeKeep]
	}
	data := make([]byte, len(line), len(line)+1)
	copy(data, line)
	f.frames.add(kind, data, size)
	if kind == JSON && f.forward {
		if _, err := f.out.Write(append(data, '\n')); err != nil {
			f.forward = false // the reader is gone; keep recording
		}
	}
	if cap(f.line) > f.reusable {
		f.line = nil
	} else {
		f.line = f.line[:0]
	}
	f.size, f.over, f.last = 0, false, 0
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
