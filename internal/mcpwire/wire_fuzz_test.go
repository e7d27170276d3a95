package mcpwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"testing"
)

// chunkReader returns at most n bytes per Read.
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

// FuzzLineReader reads any input, in reads of any size, and checks the
// lines against a split on "\n" with one "\r" trimmed: none longer than
// MaxLine (a longer one is reported tooLong, with no bytes), none lost or
// added, then io.EOF for good. When long is 1 to 4 the input starts with
// MaxLine-2+long bytes of line, so the limit's edge is reached.
func FuzzLineReader(f *testing.F) {
	f.Fuzz(func(t *testing.T, input []byte, chunk uint16, long uint8) {
		n := 1 + int(chunk)
		if long >= 1 && long <= 4 {
			input = append(bytes.Repeat([]byte("x"), MaxLine-2+int(long)), input...)
			n = max(n, 4096) // not 8 MiB one byte at a time
		}
		pieces := bytes.Split(input, []byte("\n"))
		if len(pieces[len(pieces)-1]) == 0 {
			pieces = pieces[:len(pieces)-1]
		}
		lr := NewLineReader(&chunkReader{b: input, n: n})
		for i, p := range pieces {
			want := bytes.TrimSuffix(p, []byte("\r"))
			line, tooLong, err := lr.Next()
			if err != nil {
				t.Fatalf("line %d: %v, want a line", i, err)
			}
			if len(line) > MaxLine {
				t.Fatalf("line %d: %d bytes, over MaxLine", i, len(line))
			}
			if tooLong != (len(want) > MaxLine) {
				t.Fatalf("line %d (%d bytes): tooLong %v", i, len(want), tooLong)
			}
			if tooLong && line != nil || !tooLong && !bytes.Equal(line, want) {
				t.Fatalf("line %d = %.60q, want %.60q", i, line, want)
			}
		}
		for range 2 {
			if line, _, err := lr.Next(); !errors.Is(err, io.EOF) {
				t.Fatalf("after %d lines: %.60q, %v; want io.EOF", len(pieces), line, err)
			}
		}
	})
}

// FuzzDecode checks Decode on any line, and on a request built from any
// method and id:
//   - never both a request and a rejection; a rejection is -32700 exactly
//     when the line is not JSON, else -32600, with a string, number or no id;
//   - a request has a non-empty method, a string, number or no id, and params
//     that are absent, an object or an array; encoded again it decodes to
//     the same request;
//   - a request encoded from method and id decodes to that method and id.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, line []byte, method string, id int64) {
		req, rej := Decode(line)
		if req != nil && rej != nil {
			t.Fatalf("Decode(%q) returned both a request and a rejection", line)
		}
		if rej != nil {
			checkRejection(t, line, rej)
		}
		if req != nil {
			checkRequest(t, line, req)
			again, rej := Decode(encodeRequest(t, req))
			if rej != nil || again == nil {
				t.Fatalf("request %+v encoded again: %+v, %+v", req, again, rej)
			}
			if again.Method != req.Method || !bytes.Equal(again.ID, req.ID) || !bytes.Equal(again.Params, compact(t, req.Params)) {
				t.Fatalf("request %+v encoded again decodes to %+v", req, again)
			}
		}

		if method == "" {
			return
		}
		m, err := json.Marshal(method)
		if err != nil {
			t.Fatal(err)
		}
		var wantMethod string // as JSON carries it: invalid UTF-8 becomes U+FFFD
		if err := json.Unmarshal(m, &wantMethod); err != nil {
			t.Fatal(err)
		}
		built := `{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"method":` + string(m) + `,"params":{"m":` + string(m) + `}}`
		req, rej = Decode([]byte(built))
		if rej != nil || req == nil {
			t.Fatalf("Decode(%s) = %+v, %+v; want the request", built, req, rej)
		}
		if req.Method != wantMethod || string(req.ID) != strconv.FormatInt(id, 10) || string(req.Params) != `{"m":`+string(m)+`}` {
			t.Fatalf("Decode(%s) = %+v", built, req)
		}
	})
}

func checkRejection(t *testing.T, line []byte, rej *Response) {
	t.Helper()
	if rej.Error == nil || rej.Result != nil {
		t.Fatalf("Decode(%q): a rejection without an error: %+v", line, rej)
	}
	switch code := rej.Error.Code; {
	case !json.Valid(line) && code != CodeParseError:
		t.Fatalf("Decode(%q): code %d for a line that is not JSON, want %d", line, code, CodeParseError)
	case json.Valid(line) && code != CodeInvalidRequest:
		t.Fatalf("Decode(%q): code %d for JSON, want %d", line, code, CodeInvalidRequest)
	}
	if rej.ID != nil && ValidID(rej.ID) == nil {
		t.Fatalf("Decode(%q): rejection id %s is not a string or a number", line, rej.ID)
	}
	if _, err := json.Marshal(rej); err != nil {
		t.Fatalf("Decode(%q): the rejection does not encode: %v", line, err)
	}
}

func checkRequest(t *testing.T, line []byte, req *Request) {
	t.Helper()
	if !json.Valid(line) || req.Method == "" {
		t.Fatalf("Decode(%q) accepted %+v", line, req)
	}
	if req.ID != nil && ValidID(req.ID) == nil {
		t.Fatalf("Decode(%q): id %s is not a string or a number", line, req.ID)
	}
	if p := req.Params; p != nil && p[0] != '{' && p[0] != '[' {
		t.Fatalf("Decode(%q): params %s are not structured", line, p)
	}
}

// encodeRequest writes req as a JSON-RPC line, HTML characters as they are.
func encodeRequest(t *testing.T, req *Request) []byte {
	t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": req.Method}
	if req.ID != nil {
		msg["id"] = req.ID
	}
	if req.Params != nil {
		msg["params"] = req.Params
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil {
		t.Fatalf("encoding %+v: %v", req, err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func compact(t *testing.T, raw json.RawMessage) json.RawMessage {
	t.Helper()
	if raw == nil {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
