package session

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// requestID finds the harness's id in a request body.
var requestID = regexp.MustCompile(`"id":"(sm-\d+)"`)

// FuzzHTTPEventStream answers a request over streamable HTTP with any event
// stream ("{id}" in it becomes the request's id) from a loopback server, and
// checks that the session ends the call in bounded time without a panic,
// keeps within its frame bounds and records only JSON. Then any JSON object
// sent as a result, after some notifications, over one data line or several,
// comes back as the call's result.
func FuzzHTTPEventStream(f *testing.F) {
	var mu sync.Mutex
	var stream string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed) // no resumed stream, no session to end
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if strings.Contains(string(body), `"notifications/`) {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		id := "none"
		if m := requestID.FindSubmatch(body); m != nil {
			id = string(m[1])
		}
		mu.Lock()
		s := strings.ReplaceAll(stream, "{id}", id)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, s)
	}))
	f.Cleanup(srv.Close)

	call := func(t *testing.T, events string) (json.RawMessage, error, *HTTP) {
		t.Helper()
		mu.Lock()
		stream = events
		mu.Unlock()
		h, err := OpenHTTP(srv.URL, nil, nil, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		start := time.Now()
		res, err := h.Request(ctx, "tools/list", map[string]any{})
		if took := time.Since(start); took > 20*time.Second {
			t.Fatalf("the call took %s past its 2 s deadline", took)
		}
		if err != nil || res == nil {
			return nil, err, h
		}
		return res.Result, nil, h
	}

	f.Fuzz(func(t *testing.T, events string, result []byte, notes uint8, indent bool) {
		_, _, h := call(t, events)
		frames := h.Frames(0)
		h.Close()
		if len(frames) > maxHTTPFrames {
			t.Fatalf("%d frames, over the bound %d", len(frames), maxHTTPFrames)
		}
		for _, fr := range frames {
			if !json.Valid(fr.Data) {
				t.Fatalf("frame %d is not JSON: %q", fr.Seq, fr.Data)
			}
		}

		var want bytes.Buffer
		if json.Compact(&want, result) != nil || want.Len() == 0 || want.Bytes()[0] != '{' {
			return
		}
		data := want.String()
		if indent {
			var b bytes.Buffer
			_ = json.Indent(&b, want.Bytes(), "", " ")
			data = b.String()
		}
		var s strings.Builder
		for range notes % 8 {
			s.WriteString("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n")
		}
		s.WriteString("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"{id}\",\"result\":\n")
		for line := range strings.SplitSeq(data, "\n") {
			s.WriteString("data: " + line + "\n")
		}
		s.WriteString("data: }\n\n")
		got, err, h := call(t, s.String())
		h.Close()
		var back bytes.Buffer
		if err != nil || json.Compact(&back, got) != nil || back.String() != want.String() {
			t.Fatalf("the result %s sent as an event came back as %s (%v); stream %q", want.String(), got, err, s.String())
		}
	})
}
