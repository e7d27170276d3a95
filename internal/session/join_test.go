package session

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// sseEvent is one event as mcp-go's reader dispatches it.
type sseEvent struct{ name, data string }

// clientEvents reads a stream the way mcp-go's SSE reader does: lines end
// at "\n" with trailing "\r"s and "\n"s trimmed, data lines joined by
// "\n" after "data:" and one space, an event dispatched at a blank line
// or at the end of the stream, "message" when it has no name.
func clientEvents(t *testing.T, r io.Reader) (events []sseEvent, dataLines int) {
	t.Helper()
	br := bufio.NewReader(r)
	var name, data string
	dispatch := func() {
		if data != "" {
			events = append(events, sseEvent{cmpOr(name, "message"), data})
		}
		name, data = "", ""
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			dispatch()
			return events, dataLines
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			dispatch()
		case strings.HasPrefix(line, "event:"):
			name = strings.TrimSpace(line[len("event:"):])
		case strings.HasPrefix(line, "data:"):
			dataLines++
			v := strings.TrimPrefix(line[len("data:"):], " ")
			if data == "" {
				data = v
			} else {
				data += "\n" + v
			}
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// randomStream is an event stream of events made of data lines (some
// empty, some with two leading spaces or an inner "\r"), comments, id:
// and event: fields, lines ended by "\n" or "\r\n", "data" without a
// colon, and blank lines, maybe unfinished at the end.
func randomStream(rng *rand.Rand) string {
	var b strings.Builder
	eol := func() string {
		if rng.IntN(3) == 0 {
			return "\r\n"
		}
		return "\n"
	}
	for range rng.IntN(6) + 1 {
		for range rng.IntN(8) {
			switch rng.IntN(9) {
			case 0:
				b.WriteString(": a comment" + eol())
			case 1:
				b.WriteString("event: message" + eol())
			case 2:
				b.WriteString("id: 7" + eol())
			case 3:
				b.WriteString("data" + eol())
			case 4:
				b.WriteString("data:" + eol())
			case 5:
				b.WriteString("data:  two spaces" + eol())
			case 6:
				b.WriteString("data: in\rner" + eol())
			default:
				fmt.Fprintf(&b, "data: {\"n\":%d,\"s\":\"x y\"}%s", rng.IntN(1000), eol())
			}
		}
		b.WriteString(eol())
	}
	if rng.IntN(3) == 0 {
		b.WriteString("data: unfinished")
	}
	return b.String()
}

// TestJoinedIsTheSameStream: whatever the stream and however its bytes
// arrive, the client reads the same events from the joined stream, each
// event's data the same but for line breaks between data lines becoming
// spaces, with no more data lines than the runs of data lines the stream
// has, and the joined stream is never longer than the stream plus a byte
// a line.
func TestJoinedIsTheSameStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 20))
	for i := range 2000 {
		raw := randomStream(rng)
		want, rawLines := clientEvents(t, strings.NewReader(raw))
		var joined bytes.Buffer
		src := io.NopCloser(iotest.OneByteReader(strings.NewReader(raw)))
		if i%2 == 0 {
			src = io.NopCloser(strings.NewReader(raw))
		}
		if _, err := io.Copy(&joined, newJoinedBody(src)); err != nil {
			t.Fatal(err)
		}
		got, lines := clientEvents(t, bytes.NewReader(joined.Bytes()))
		if len(got) != len(want) {
			t.Fatalf("stream %q: %d events joined, %d raw\njoined: %q", raw, len(got), len(want), joined.String())
		}
		for k := range want {
			w := strings.ReplaceAll(want[k].data, "\n", " ")
			g := strings.ReplaceAll(got[k].data, "\n", " ")
			// A data line's trailing "\r"s end it for the client either way.
			if got[k].name != want[k].name || g != w {
				t.Fatalf("stream %q: event %d joined %+v, raw %+v", raw, k, got[k], want[k])
			}
		}
		if lines > rawLines {
			t.Fatalf("stream %q: %d data lines joined, %d raw", raw, lines, rawLines)
		}
		if joined.Len() > len(raw)+strings.Count(raw, "\n")+1 {
			t.Fatalf("stream %q grew to %d bytes from %d", raw, joined.Len(), len(raw))
		}
	}
}

// TestJoinedRunIsOneLine: a run of data lines reaches the client as one.
func TestJoinedRunIsOneLine(t *testing.T) {
	raw := "event: message\ndata: {\"a\":\ndata: 1,\r\ndata:\"b\":2}\n\n"
	var joined bytes.Buffer
	if _, err := io.Copy(&joined, newJoinedBody(io.NopCloser(strings.NewReader(raw)))); err != nil {
		t.Fatal(err)
	}
	if want := "event: message\ndata: {\"a\": 1, \"b\":2}\n\n"; joined.String() != want {
		t.Fatalf("joined %q, want %q", joined.String(), want)
	}
}

// BenchmarkJoin is the cost of joining an event stream: a 7 MiB answer on
// one data line and on 115,000 short ones (bytes/s in the figure).
func BenchmarkJoin(b *testing.B) {
	for name, line := range map[string]int{"one-line": legalSize, "short-lines": 62} {
		b.Run(name, func(b *testing.B) {
			var s strings.Builder
			s.WriteString("event: message\n")
			for s.Len() < legalSize {
				s.WriteString("data: " + strings.Repeat("p", line) + "\n")
			}
			s.WriteString("\n")
			raw := s.String()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := io.Copy(io.Discard, newJoinedBody(io.NopCloser(strings.NewReader(raw)))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
