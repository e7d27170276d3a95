package launch

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

type wantFrame struct {
	kind FrameKind
	data string
	size int64
}

// frame runs a framer over input and returns the frames and the forwarded
// messages.
func frame(t *testing.T, input io.Reader, maxLine int) ([]Frame, string) {
	t.Helper()
	return frameUpTo(t, input, maxLine, maxLine)
}

// frameUpTo is frame with a maxMessage of its own.
func frameUpTo(t *testing.T, input io.Reader, maxLine, maxMessage int) ([]Frame, string) {
	t.Helper()
	log := newFrameLog(DefaultMaxFrameBytes)
	r, w := io.Pipe()
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	newFramer(log, w, maxLine, maxMessage, nil).run(input)
	return log.since(0), <-got
}

func checkFrames(t *testing.T, got []Frame, want []wantFrame) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d frames, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Kind != w.kind || string(g.Data) != w.data || g.Size != w.size || g.Seq != i {
			t.Errorf("frame %d = {Seq:%d Kind:%s Data:%.40q(len %d) Size:%d}, want {Kind:%s Data:%.40q(len %d) Size:%d}",
				i, g.Seq, g.Kind, g.Data, len(g.Data), g.Size, w.kind, w.data, len(w.data), w.size)
		}
	}
}

func TestFramerLineEndings(t *testing.T) {
	const in = "a\r\n\r\n{}\n\r\r\n[1]\r"
	want := []wantFrame{
		{Garbage, "a", 1},
		{Blank, "", 0},
		{JSON, "{}", 2},
		{Blank, "\r", 1}, // only one trailing "\r" belongs to the line ending
		{JSON, "[1]", 3}, // unterminated last line, "\r" removed
	}
	for name, r := range map[string]io.Reader{
		"whole":        strings.NewReader(in),
		"byte-by-byte": iotest.OneByteReader(strings.NewReader(in)),
	} {
		t.Run(name, func(t *testing.T) {
			frames, msgs := frame(t, r, 100)
			checkFrames(t, frames, want)
			if msgs != "{}\n[1]\n" {
				t.Errorf("messages = %q, want %q", msgs, "{}\n[1]\n")
			}
		})
	}
}

func TestFramerMaxLineBoundary(t *testing.T) {
	in := "0123456789\r\n" + // exactly maxLine before its "\r\n": kept
		"0123456789a\n" + // one byte over
		"0123456789a\r\n" +
		"ok\n"
	frames, _ := frame(t, iotest.HalfReader(strings.NewReader(in)), 10)
	checkFrames(t, frames, []wantFrame{
		{Garbage, "0123456789", 10},
		{Oversize, "0123456789a", 11},
		{Oversize, "0123456789a", 11},
		{Garbage, "ok", 2},
	})
}

// TestFramerDeliversOversizeMessages: a JSON line past maxLine but within
// maxMessage is an oversize frame holding its first 4 KiB, and is still
// delivered whole; past maxMessage, or when it is not JSON, it is not.
func TestFramerDeliversOversizeMessages(t *testing.T) {
	big := `{"tools":"` + strings.Repeat("d", 2*oversizeKeep) + `"}` // within maxMessage
	huge := `{"tools":"` + strings.Repeat("d", 4*readBuffer) + `"}`  // past it
	junk := strings.Repeat("x", 3*oversizeKeep)
	in := big + "\r\n" + huge + "\n" + junk + "\n" + "[]\n"
	frames, msgs := frameUpTo(t, iotest.HalfReader(strings.NewReader(in)), 100, 2*readBuffer)
	checkFrames(t, frames, []wantFrame{
		{Oversize, big[:oversizeKeep], int64(len(big))},
		{Oversize, huge[:oversizeKeep], int64(len(huge))},
		{Oversize, junk[:oversizeKeep], int64(len(junk))},
		{JSON, "[]", 2},
	})
	if msgs != big+"\n[]\n" {
		t.Errorf("messages = %.60q (%d bytes), want the oversize JSON line whole and []", msgs, len(msgs))
	}
}

func TestFramerLinesLongerThanItsBuffer(t *testing.T) {
	long := `"` + strings.Repeat("j", 3*readBuffer) + `"`
	huge := strings.Repeat("h", 5*readBuffer)
	in := long + "\n" + huge + "\r\n" + "[]"
	frames, msgs := frame(t, strings.NewReader(in), 4*readBuffer)
	checkFrames(t, frames, []wantFrame{
		{JSON, long, int64(len(long))},
		{Oversize, huge[:oversizeKeep], int64(len(huge))},
		{JSON, "[]", 2},
	})
	if msgs != long+"\n[]\n" {
		t.Errorf("messages = %d bytes, want the two JSON lines", len(msgs))
	}
}

func TestFramerKeepsRecordingWhenMessagesIsClosed(t *testing.T) {
	log := newFrameLog(DefaultMaxFrameBytes)
	r, w := io.Pipe()
	r.Close()
	newFramer(log, w, 100, 100, nil).run(strings.NewReader("{}\nx\n[]\n"))
	if got := len(log.since(0)); got != 3 {
		t.Errorf("recorded %d frames after the reader went away, want 3", got)
	}
}

func TestFrameLogBudget(t *testing.T) {
	l := newFrameLog(10)
	for i := range 5 {
		l.add(JSON, bytes.Repeat([]byte{'0' + byte(i)}, 4), 4)
	}
	frames := l.since(0)
	var kept []string
	for _, f := range frames {
		kept = append(kept, string(f.Data))
	}
	if want := []string{"", "", "", "3333", "4444"}; strings.Join(kept, ",") != strings.Join(want, ",") {
		t.Errorf("data kept = %q, want %q", kept, want)
	}
	if l.bytesLost() != 12 {
		t.Errorf("bytesLost() = %d, want 12", l.bytesLost())
	}
	l.add(JSON, make([]byte, 11), 11) // larger than the whole budget
	if last := l.since(5); len(last) != 1 || last[0].Data != nil || l.bytesLost() != 12+8+11 {
		t.Errorf("a frame larger than the budget: Data %v, bytesLost %d; want nil, %d", last[0].Data, l.bytesLost(), 12+8+11)
	}
}

// TestFramerTellsCutLines: a line past maxMessage is told once, with its
// head, as soon as it passes the limit (while the server is still writing
// it, and never ends it); a line within maxMessage, oversize or not, is
// never told.
func TestFramerTellsCutLines(t *testing.T) {
	const maxMessage = 2 * readBuffer
	head := `{"jsonrpc":"2.0","id":"sm-7","result":{"tools":"`
	within := `{"tools":"` + strings.Repeat("d", maxMessage-20) + `"}`
	cuts := make(chan Cut, 4)
	onCut := &cutHandler{}
	onCut.fn.Store(new(func(c Cut) { cuts <- c }))
	in, write := io.Pipe()
	out, w := io.Pipe()
	go func() { _, _ = io.Copy(io.Discard, out) }()
	done := make(chan struct{})
	go func() {
		defer close(done)
		newFramer(newFrameLog(DefaultMaxFrameBytes), w, 100, maxMessage, onCut).run(in)
	}()
	go func() {
		_, _ = io.WriteString(write, within+"\n"+head)
		for {
			if _, err := write.Write(bytes.Repeat([]byte("p"), readBuffer)); err != nil {
				return // the line never ends
			}
		}
	}()
	select {
	case c := <-cuts:
		if !strings.HasPrefix(string(c.Head), head) || len(c.Head) != oversizeKeep || c.Limit != maxMessage {
			t.Errorf("cut head %.60q (%d bytes), limit %d; want the endless line's first %d bytes, limit %d", c.Head, len(c.Head), c.Limit, oversizeKeep, maxMessage)
		}
	case <-time.After(20 * time.Second): // a bound for a hang, not a speed test
		t.Fatal("an endless line past maxMessage was never told")
	}
	write.CloseWithError(io.ErrUnexpectedEOF)
	<-done
	if len(cuts) != 0 {
		t.Errorf("%d more cuts told, want the one line once", len(cuts))
	}
}

// TestFramerTooDeep records a line nested past MaxDepth as too-deep, keeps
// its first 4 KiB only and tells it at once (Cut.Depth) with its head,
// within or past maxLine alike; a line nested exactly MaxDepth deep is
// JSON, and garbage that nests little is garbage.
func TestFramerTooDeep(t *testing.T) {
	deep := func(levels int) string {
		return `{"jsonrpc":"2.0","id":"sm-3","result":{"tools":[{"inputSchema":` + strings.Repeat(`{"items":`, levels) + `{}` + strings.Repeat(`}`, levels) + `}]}}`
	}
	for _, tc := range []struct {
		name    string
		line    string
		maxLine int
		want    FrameKind
	}{
		{"past MaxDepth", deep(MaxDepth), 1 << 20, TooDeep},
		{"past MaxDepth and maxLine", deep(2 * MaxDepth), 100, TooDeep},
		{"at MaxDepth", deep(MaxDepth - 6), 1 << 20, JSON}, // six levels around the schema's
		{"shallow garbage", `{"a": [}`, 1 << 20, Garbage},
		{"brackets in a string", `{"a":"` + strings.Repeat("[", 2*MaxDepth) + `"`, 1 << 20, Garbage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cuts []Cut
			onCut := &cutHandler{}
			onCut.fn.Store(new(func(c Cut) { cuts = append(cuts, c) }))
			frames := newFrameLog(DefaultMaxFrameBytes)
			out, w := io.Pipe()
			go func() { _, _ = io.Copy(io.Discard, out) }()
			newFramer(frames, w, tc.maxLine, 8<<20, onCut).run(strings.NewReader(tc.line + "\n"))
			got := frames.since(0)
			if len(got) != 1 || got[0].Kind != tc.want || got[0].Size != int64(len(tc.line)) {
				var kinds []string
				for _, f := range got {
					kinds = append(kinds, fmt.Sprintf("%s (%d bytes)", f.Kind, f.Size))
				}
				t.Fatalf("frames %v, want one %s line of %d bytes", kinds, tc.want, len(tc.line))
			}
			if tc.want != TooDeep {
				if len(cuts) != 0 {
					t.Errorf("told %d cuts, want none", len(cuts))
				}
				return
			}
			if len(got[0].Data) != oversizeKeep {
				t.Errorf("kept %d bytes, want the first %d", len(got[0].Data), oversizeKeep)
			}
			if len(cuts) != 1 || cuts[0].Depth != MaxDepth || !strings.HasPrefix(string(cuts[0].Head), `{"jsonrpc":"2.0","id":"sm-3"`) {
				t.Errorf("%d cuts, want one with depth %d and the line's head", len(cuts), MaxDepth)
			}
		})
	}
}
