package session

import (
	"bytes"
	"io"
)

// mcp-go joins the data lines of one event by string concatenation, one
// line at a time: an event of k lines and n bytes costs it k·n/2 bytes of
// copying, so a legal 7 MiB answer sent as 100,000 short data lines would
// hold a core until the call's deadline. Every event stream an HTTP
// session reads is therefore joined first, linearly: consecutive data
// lines of an event become one data line whose values are separated by a
// space instead of the line break the client would put there. For a JSON
// message (all an MCP stream carries) that is the same message: a line
// break between data lines cannot fall inside a JSON string, where a raw
// line break is not allowed, so it is whitespace between tokens. Every
// other line (event:, id:, retry:, comments, the blank line that ends an
// event) passes through unchanged, and a data line after one of them
// starts a new joined line, which the client then joins with its line
// break as before. Trailing "\r"s of a data line, which the client trims
// anyway, are dropped; the output is never longer than the input plus a
// byte a line. A data line is held until its end (the session's bound keeps a
// line within the message limit), so memory stays bounded too.

// dataField is what a data line starts with.
const dataField = "data:"

// joinedBody is an event-stream body with each run of data lines joined.
type joinedBody struct {
	rc   io.ReadCloser
	in   []byte // scratch for what rc gives
	out  []byte // joined bytes not yet read
	done error  // rc's error once it gave one

	head []byte // the current line's first bytes while it is classified
	kind lineKind
	line []byte // a data line's value, held until its end: one the stream leaves unfinished is dropped, as the client drops it
	open bool   // a joined data line is in the output, not yet ended
	// empty: the event's data, as the client joins it, is empty so far.
	// The client then takes the next value as it is, with no line break
	// before it, so a joined line leaves out the space there too.
	empty bool
	blank bool // the other line being passed through has held only "\r"s
}

type lineKind uint8

const (
	unknownLine lineKind = iota // not classified yet: its first bytes are in head
	firstData                   // the first data line of a run, passed through
	moreData                    // a data line after another: its value is appended
	otherLine                   // anything else, passed through
)

func newJoinedBody(rc io.ReadCloser) *joinedBody {
	return &joinedBody{rc: rc, in: make([]byte, 32<<10), head: make([]byte, 0, len(dataField)), empty: true}
}

func (j *joinedBody) Read(p []byte) (int, error) {
	for len(j.out) == 0 {
		if j.done != nil {
			return 0, j.done
		}
		n, err := j.rc.Read(j.in)
		j.out = j.join(j.out[:0], j.in[:n])
		if err != nil {
			j.done = err
			j.out = j.end(j.out)
		}
	}
	n := copy(p, j.out)
	j.out = j.out[n:]
	return n, nil
}

func (j *joinedBody) Close() error { return j.rc.Close() }

// join appends to out what the input chunk becomes. A line's first bytes
// are classified one at a time; the rest of a line is taken to its end at
// once.
func (j *joinedBody) join(out, chunk []byte) []byte {
	for len(chunk) > 0 {
		if j.kind == unknownLine {
			c := chunk[0]
			chunk = chunk[1:]
			if c == '\n' {
				out = j.other(out)
				out = append(out, '\n')
				if onlyCR(j.head) {
					j.empty = true // a blank line: the event is dispatched
				}
				j.head = j.head[:0]
				continue
			}
			j.head = append(j.head, c)
			switch {
			case string(j.head) == dataField && j.open:
				j.kind = moreData
			case string(j.head) == dataField:
				j.kind = firstData
			case string(j.head) != dataField[:len(j.head)]:
				out = j.other(out)
				j.kind, j.blank = otherLine, onlyCR(j.head)
			}
			continue
		}
		// The rest of the line, up to its end or the chunk's.
		rest, ended := chunk, false
		if k := bytes.IndexByte(chunk, '\n'); k >= 0 {
			rest, ended = chunk[:k], true
			chunk = chunk[k+1:]
		} else {
			chunk = nil
		}
		if j.kind == otherLine {
			out = append(out, rest...)
			if !onlyCR(rest) {
				j.blank = false
			}
			if ended {
				out = append(out, '\n')
				if j.blank {
					j.empty = true // a blank line: the event is dispatched
				}
				j.kind, j.head = unknownLine, j.head[:0]
			}
			continue
		}
		j.line = append(j.line, rest...)
		if !ended {
			continue
		}
		// The value: after one optional space, less trailing "\r"s.
		v := bytes.TrimPrefix(bytes.TrimRight(j.line, "\r"), []byte{' '})
		switch {
		case j.kind == firstData:
			out = append(out, dataField+" "...)
		case !j.empty:
			out = append(out, ' ')
		}
		out = append(out, v...)
		if len(v) > 0 {
			j.empty = false
		}
		j.open = true
		j.kind, j.head, j.line = unknownLine, j.head[:0], j.line[:0]
	}
	return out
}

// other starts a line that is not a data line: a joined data line before
// it ends first, then the line's first bytes (in head) pass through.
func (j *joinedBody) other(out []byte) []byte {
	if j.open {
		out = append(out, '\n')
		j.open = false
	}
	return append(out, j.head...)
}

// onlyCR reports whether b holds nothing but "\r"s: a line the client
// trims to nothing.
func onlyCR(b []byte) bool { return len(bytes.Trim(b, "\r")) == 0 }

// end appends what the end of the input leaves: the first bytes of an
// unfinished line, and the end of a joined data line. An unfinished data
// line is dropped, as the client drops it.
func (j *joinedBody) end(out []byte) []byte {
	if j.kind == unknownLine && len(j.head) > 0 {
		out = j.other(out)
		j.head = j.head[:0]
	}
	if j.open {
		out = append(out, '\n')
		j.open = false
	}
	return out
}
