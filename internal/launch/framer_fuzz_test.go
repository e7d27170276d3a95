package launch

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// chunkReader returns at most n bytes per Read, so a fuzz input also
// varies where reads split lines (and "\r\n" pairs).
type chunkReader struct {
	b []byte
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.b)
	r.b = r.b[k:]
	return k, nil
}

// modelFrames is what the framer must record for input, written from the
// contract alone: one frame per "\n"-terminated line and one for a non-empty
// unterminated last line; one trailing "\r" is the line ending's; a line
// longer than maxLine is Oversize with its first oversizeKeep bytes.
// forward is what Messages must carry: each JSON line, and each oversize
// line of valid JSON up to maxMessage bytes, whole, each with a "\n".
func modelFrames(input []byte, maxLine, maxMessage int) (frames []Frame, forward []byte) {
	pieces := bytes.Split(input, []byte("\n"))
	if last := pieces[len(pieces)-1]; len(last) == 0 {
		pieces = pieces[:len(pieces)-1] // input empty or ending in "\n"
	}
	for i, p := range pieces {
		line := bytes.TrimSuffix(p, []byte("\r"))
		f := Frame{Seq: i, Data: line, Size: int64(len(line))}
		switch {
		case len(line) > maxLine:
			f.Kind, f.Data = Oversize, line[:min(len(line), oversizeKeep)]
			if len(line) <= maxMessage && json.Valid(line) {
				forward = append(append(forward, line...), '\n')
			}
		case len(bytes.TrimSpace(line)) == 0:
			f.Kind = Blank
		case json.Valid(line):
			f.Kind = JSON
			forward = append(append(forward, line...), '\n')
		default:
			f.Kind = Garbage
		}
		frames = append(frames, f)
	}
	return frames, forward
}

// checkCuts checks that the framer told exactly the lines longer than
// maxMessage, once each and in order, each with a head that is the line's
// start: at least as much of it as passed the limit, at most 4 KiB.
func checkCuts(t *testing.T, cuts []Cut, input []byte, maxMessage int) {
	t.Helper()
	var want [][]byte
	pieces := bytes.Split(input, []byte("\n"))
	for _, p := range pieces {
		if len(bytes.TrimSuffix(p, []byte("\r"))) > maxMessage {
			want = append(want, p)
		}
	}
	if len(cuts) != len(want) {
		t.Fatalf("told %d cut lines, want %d", len(cuts), len(want))
	}
	for i, c := range cuts {
		line := want[i]
		if !bytes.HasPrefix(line, c.Head) || len(c.Head) > oversizeKeep || len(c.Head) < min(oversizeKeep, maxMessage+1) || c.Limit != maxMessage {
			t.Errorf("cut %d: head %.40q (%d bytes), limit %d; want a prefix of %.40q of %d to %d bytes, limit %d",
				i, c.Head, len(c.Head), c.Limit, line, min(oversizeKeep, maxMessage+1), oversizeKeep, maxMessage)
		}
	}
}

// FuzzFramer feeds any byte stream, in reads of any size, through the stdout
// framer with any line and message limits and evidence budget, and checks it
// against modelFrames: every line recorded once, in order, with its kind and
// full size; no frame's data longer than the limit allows; the data held
// within the budget and every byte accounted for (held plus FramesLost);
// exactly the JSON lines forwarded, oversize ones within maxMessage whole.
func FuzzFramer(f *testing.F) {
	// Lines longer than the framer's 64 KiB read buffer, too large for a
	// corpus file (the rest of the seeds are in testdata/fuzz/FuzzFramer).
	huge := strings.Repeat("h", readBuffer+100)
	f.Add([]byte(`{"a":"`+strings.Repeat("j", readBuffer)+`"}`+"\r\n"+huge+"\n[1]"), uint32(2*readBuffer), uint32(0), uint32(1<<20), uint16(0))
	f.Add([]byte(huge+"\r\n{}\n"), uint32(100), uint32(3*readBuffer), uint32(5000), uint16(4000))
	// A line one byte past maxMessage with no "\r" is never cut, but told.
	f.Add([]byte("abcdef\n{}\nabcde\r\nabcdefg\r\n"), uint32(2), uint32(5), uint32(5000), uint16(1))
	f.Fuzz(func(t *testing.T, input []byte, maxLine, maxMessage, budget uint32, chunk uint16) {
		maxLine = 1 + maxLine%(4*readBuffer)
		maxMessage = max(maxLine, maxMessage%(4*readBuffer)) // never below maxLine, as newFramer makes it
		budget = 1 + budget%(1<<20)
		log := newFrameLog(int(budget))
		r, w := io.Pipe()
		forwarded := make(chan []byte)
		go func() {
			b, _ := io.ReadAll(r)
			forwarded <- b
		}()
		var cuts []Cut
		onCut := &cutHandler{}
		onCut.fn.Store(new(func(c Cut) { cuts = append(cuts, c) }))
		newFramer(log, w, int(maxLine), int(maxMessage), onCut).run(&chunkReader{b: input, n: 1 + int(chunk)})
		msgs := <-forwarded
		checkCuts(t, cuts, input, int(maxMessage))

		want, wantMsgs := modelFrames(input, int(maxLine), int(maxMessage))
		if got := log.count(); got != len(want) {
			t.Fatalf("recorded %d frames, want %d", got, len(want))
		}
		got := log.since(0)
		if len(got) > log.maxRecords {
			t.Errorf("holds %d frame records, over the bound %d", len(got), log.maxRecords)
		}
		first := len(want) - len(got) // older records may be dropped, never newer ones
		var held, total int64
		for _, w := range want {
			total += int64(len(w.Data))
		}
		for i, g := range got {
			w := want[first+i]
			if g.Seq != w.Seq || g.Kind != w.Kind || g.Size != w.Size {
				t.Fatalf("frame %d = {Seq %d Kind %s Size %d}, want {Seq %d Kind %s Size %d}", i, g.Seq, g.Kind, g.Size, w.Seq, w.Kind, w.Size)
			}
			if g.Data != nil && !bytes.Equal(g.Data, w.Data) {
				t.Fatalf("frame %d data = %.60q, want %.60q", g.Seq, g.Data, w.Data)
			}
			held += int64(len(g.Data))
		}
		if held > int64(budget) {
			t.Errorf("holds %d bytes of frame data, over the budget %d", held, budget)
		}
		if held+log.bytesLost() != total {
			t.Errorf("held %d + lost %d bytes = %d, want the %d bytes of every frame", held, log.bytesLost(), held+log.bytesLost(), total)
		}
		if !bytes.Equal(msgs, wantMsgs) {
			t.Errorf("forwarded %.80q, want %.80q", msgs, wantMsgs)
		}
	})
}
