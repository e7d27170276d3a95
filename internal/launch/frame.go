package launch

import (
	"bytes"
	"sync"
	"sync/atomic"
	"time"
)

// FrameKind classifies one line of the server's stdout.
type FrameKind string

// The kinds of stdout frame.
const (
	JSON     FrameKind = "json"     // a valid JSON text; forwarded to Messages
	Garbage  FrameKind = "garbage"  // anything else that is not blank
	Blank    FrameKind = "blank"    // empty or whitespace only
	Oversize FrameKind = "oversize" // longer than Spec.MaxLine; discarded
	TooDeep  FrameKind = "too-deep" // JSON nested past MaxDepth, which no decoder of the harness reads; discarded
)

// MaxDepth is the JSON nesting the harness's decoders read (encoding/json's
// limit, which the MCP client's transport shares): a line nested deeper is
// refused whole, so it is recorded as TooDeep and told (OnCut) like a line
// past the message limit.
const MaxDepth = 10000

// Frame is one line the server wrote to stdout.
type Frame struct {
	// Seq numbers frames from 0 in the order they were read.
	Seq int
	// Time is when the line's end was read.
	Time time.Time
	Kind FrameKind
	// Data is the line without its line ending ("\n" or "\r\n"); for an
	// oversize or too-deep line only its first 4 KiB. It is nil once dropped to stay
	// within Spec.MaxFrameBytes.
	Data []byte
	// Size is the line's full length in bytes, without its line ending.
	Size int64
}

// frameLog records frames within a byte budget for Data and a count budget
// for records.
type frameLog struct {
	mu         sync.Mutex
	frames     []Frame // frames[i].Seq == base+i
	base       int     // Seq of frames[0]
	next       int     // Seq of the next frame
	dataFrom   int     // Seq of the oldest frame that may still hold Data
	held       int64   // bytes of Data held
	lost       int64   // bytes of Data dropped
	maxBytes   int64
	maxRecords int
	// read counts the bytes read from stdout, ended those up to and
	// including the last newline: their difference is the line the server
	// is in the middle of (or, once stdout closed, the last line when it
	// had no newline).
	read, ended atomic.Int64
}

func newFrameLog(maxBytes int) *frameLog {
	return &frameLog{maxBytes: int64(maxBytes), maxRecords: max(maxBytes/256, 1024)}
}

func (l *frameLog) add(kind FrameKind, data []byte, size int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.frames = append(l.frames, Frame{Seq: l.next, Time: time.Now(), Kind: kind, Data: data, Size: size})
	l.next++
	l.held += int64(len(data))
	for l.held > l.maxBytes && l.dataFrom < l.next {
		l.dropData(l.dataFrom - l.base)
		l.dataFrom++
	}
	for len(l.frames) > l.maxRecords {
		l.dropData(0)
		l.frames[0] = Frame{}
		l.frames = l.frames[1:]
		l.base++
		l.dataFrom = max(l.dataFrom, l.base)
	}
}

func (l *frameLog) dropData(i int) {
	n := int64(len(l.frames[i].Data))
	l.frames[i].Data = nil
	l.held -= n
	l.lost += n
}

// since returns copies of the frames with Seq >= from.
func (l *frameLog) since(from int) []Frame {
	l.mu.Lock()
	defer l.mu.Unlock()
	from = max(from, l.base)
	if from >= l.next {
		return nil
	}
	out := make([]Frame, 0, l.next-from)
	for _, f := range l.frames[from-l.base:] {
		f.Data = bytes.Clone(f.Data)
		out = append(out, f)
	}
	return out
}

func (l *frameLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next
}

func (l *frameLog) bytesLost() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}
