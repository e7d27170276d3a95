package core

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sealmark/sealmark/internal/mcpwire"
	"github.com/sealmark/sealmark/packs"
)

// FuzzWireMessage runs the JSON-RPC message validator of wire-messages and
// stdout-jsonrpc-only (jsonRPC, parse, shapeProblems) and the evidence text
// (brief) over any stdout line: no panic, the same verdict every time,
// only valid JSON counted as JSON-RPC, and agreement with the server-side
// decoder: a message it finds well-formed is, to mcpwire.Decode, a request
// with the same method or a response to ignore, never a rejection.
func FuzzWireMessage(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		isRPC := jsonRPC(data)
		if isRPC != jsonRPC(data) {
			t.Fatalf("jsonRPC(%q) changed its verdict", data)
		}
		if isRPC && !json.Valid(data) {
			t.Fatalf("jsonRPC(%q) = true for invalid JSON", data)
		}
		frame := packs.Frame{Kind: "json", Data: data, Size: int64(len(data))}
		m := parse(frame)
		problems := wireProblems(m)
		if again := wireProblems(parse(frame)); !slices.Equal(problems, again) {
			t.Fatalf("shapeProblems(%q) = %q, then %q", data, problems, again)
		}
		b := brief(data)
		if !utf8.ValidString(b) || len(b) > 200+len("…") || b == "" {
			t.Fatalf("brief(%q) = %q: want valid UTF-8, 1 to 200 bytes and an ellipsis", data, b)
		}
		_ = m.brief()
		_, _ = m.code()
		if id := m.id(); idOK(id) && !sameID(id, id) {
			t.Fatalf("sameID(%s, %s) = false", id, id)
		}

		if !isRPC || m.fields == nil || len(problems) > 0 {
			return
		}
		req, rej := mcpwire.Decode(data)
		if rej != nil {
			t.Fatalf("%q is well-formed to the validator, rejected by mcpwire.Decode: %+v", data, rej.Error)
		}
		var method string
		if raw, ok := m.fields["method"]; ok {
			if json.Unmarshal(raw, &method) != nil || req == nil || req.Method != method {
				t.Fatalf("%q is a well-formed request for %q; mcpwire.Decode read %+v", data, method, req)
			}
		} else if req != nil {
			t.Fatalf("%q is a well-formed response; mcpwire.Decode read a request %+v", data, req)
		}
	})
}

// wireProblems is what wire-messages finds in one message.
func wireProblems(m message) []string {
	if m.batch == nil {
		return shapeProblems(m.fields)
	}
	var out []string
	for _, e := range m.batch {
		out = append(out, shapeProblems(e)...)
	}
	return out
}

// FuzzSSEData reads any HTTP body as sseData does (bounded by the body: its
// answer is never longer, and is the body itself when no line carries data),
// and checks that any JSON message sent as the first server-sent event,
// its data over one line or several, LF or CRLF, after an event name, an id
// and a comment, and before another event, comes back as that message.
func FuzzSSEData(f *testing.F) {
	f.Fuzz(func(t *testing.T, body string, msg []byte, indent, crlf bool) {
		got := sseData(body)
		if len(got) > len(body) {
			t.Fatalf("sseData(%q) = %d bytes, longer than the body", body, len(got))
		}
		if !hasDataLine(body) && got != body {
			t.Fatalf("sseData(%q) = %q; without a data line, want the body", body, got)
		}

		var want bytes.Buffer
		if json.Compact(&want, msg) != nil {
			return
		}
		data := want.String()
		if indent {
			var b bytes.Buffer
			if json.Indent(&b, want.Bytes(), "", "  ") != nil {
				t.Fatal("json.Indent failed on compact JSON")
			}
			data = b.String()
		}
		eol := "\n"
		if crlf {
			eol = "\r\n"
		}
		var stream strings.Builder
		stream.WriteString(": keep-alive" + eol + "event: message" + eol + "id: 7" + eol)
		for line := range strings.SplitSeq(data, "\n") {
			stream.WriteString("data: " + line + eol)
		}
		stream.WriteString(eol + "event: message" + eol + `data: {"jsonrpc":"2.0","method":"later"}` + eol + eol)
		var back bytes.Buffer
		if err := json.Compact(&back, []byte(sseData(stream.String()))); err != nil || back.String() != want.String() {
			t.Fatalf("the event stream %q gave %q (%v), want the message %s", stream.String(), sseData(stream.String()), err, want.String())
		}
	})
}

func hasDataLine(body string) bool {
	for line := range strings.SplitSeq(body, "\n") {
		if strings.HasPrefix(line, "data:") {
			return true
		}
	}
	return false
}
