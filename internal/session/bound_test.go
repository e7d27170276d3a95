package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// boundWait is the wait each HTTP call of these tests is given: a failure
// "at once" must come well within it.
const boundWait = 30 * time.Second

// legalSize is a large answer within the 8 MiB limit.
const legalSize = 7 << 20

var cursorOf = regexp.MustCompile(`"cursor":"([a-z-]+)"`)

// endless writes head, then chunks of p forever (with a newline after each
// when lines is set), until the client goes away.
func endless(w http.ResponseWriter, r *http.Request, head string, lines bool) {
	_, _ = io.WriteString(w, head)
	chunk := strings.Repeat("p", 64<<10)
	if lines {
		chunk = "data: " + strings.Repeat("p", 1<<20) + "\n"
	}
	for r.Context().Err() == nil {
		if _, err := io.WriteString(w, chunk); err != nil {
			return
		}
		w.(http.Flusher).Flush()
	}
}

// legalResult is a result of about legalSize bytes: one line (elem 0),
// or an array with one element of elem bytes per line.
func legalResult(size int) string {
	if size == 0 {
		return `{"tools":[],"pad":"` + strings.Repeat("p", legalSize) + `"}`
	}
	elem := `"` + strings.Repeat("p", size) + `"`
	n := legalSize / (len(elem) + 2)
	return "{\"tools\":[],\"pad\":[\n" + strings.Repeat(elem+",\n", n) + elem + "\n]}"
}

// streamableServer answers tools/list over streamable HTTP as its cursor
// asks: an endless event-stream line, an endless event of 1 MiB data
// lines, an endless JSON body, or a legal large answer in each form.
func streamableServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		id := "none"
		if m := requestID.FindSubmatch(body); m != nil {
			id = string(m[1])
		}
		mode := ""
		if m := cursorOf.FindSubmatch(body); m != nil {
			mode = string(m[1])
		}
		head := `{"jsonrpc":"2.0","id":"` + id + `","result":`
		switch mode {
		case "endless-line":
			w.Header().Set("Content-Type", "text/event-stream")
			endless(w, r, "event: message\ndata: "+head+`{"pad":"`, false)
		case "endless-event":
			w.Header().Set("Content-Type", "text/event-stream")
			endless(w, r, "event: message\ndata: "+head+`{"pad":"`+"\n", true)
		case "endless-json":
			w.Header().Set("Content-Type", "application/json")
			endless(w, r, head+`{"pad":"`, false)
		case "legal-line", "legal-lines", "legal-short-lines":
			w.Header().Set("Content-Type", "text/event-stream")
			msg := head + legalResult(map[string]int{"legal-lines": 112 << 10, "legal-short-lines": 62}[mode]) + "}"
			_, _ = io.WriteString(w, "event: message\ndata: "+strings.ReplaceAll(msg, "\n", "\ndata: ")+"\n\n")
		case "legal-json":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, head+legalResult(0)+"}")
		default:
			http.Error(w, "unknown mode", http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestHTTPAnswerPastTheLimit: over streamable HTTP, an answer that runs
// past the 8 MiB message limit (one endless event-stream line, one endless
// event of many lines, an endless JSON body) fails the call at once with
// an error that names the request and the limit; a 7 MiB answer, on one
// line, on 64 lines, on 115,000 lines of 64 bytes (which the client would
// take quadratic time to join unless joined first: join.go) or as a JSON
// body, comes back whole, well within the call's wait.
func TestHTTPAnswerPastTheLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: HTTP answers past the 8 MiB message limit")
	}
	srv := streamableServer(t)
	const event = "an event in the answer to tools/list was over the 8 MiB message limit, so the harness stopped reading it"
	const body = "the answer to tools/list was over the 8 MiB message limit, so the harness stopped reading it"
	for mode, want := range map[string]string{"endless-line": event, "endless-event": event, "endless-json": body, "legal-line": "", "legal-lines": "", "legal-short-lines": "", "legal-json": ""} {
		t.Run(mode, func(t *testing.T) {
			h, err := OpenHTTP(srv.URL, nil, nil, 2*boundWait)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			ctx, cancel := context.WithTimeout(context.Background(), boundWait)
			defer cancel()
			start := time.Now()
			res, err := h.Request(ctx, "tools/list", map[string]any{"cursor": mode})
			took := time.Since(start)
			if want == "" {
				var r struct {
					Pad json.RawMessage `json:"pad"`
				}
				if err != nil || json.Unmarshal(res.Result, &r) != nil || len(r.Pad) < legalSize {
					t.Fatalf("got %v; want the %d-byte answer", err, legalSize)
				}
				if took > boundWait/3 {
					t.Errorf("the answer took %s of the call's %s", took, boundWait)
				}
				return
			}
			var large *packs.TooLargeError
			if !errors.As(err, &large) || err.Error() != want {
				t.Fatalf("got %v (%T); want %q", err, err, want)
			}
			if took > boundWait/3 {
				t.Errorf("the call took %s of its %s", took, boundWait)
			}
		})
	}
}

// legacyServer serves the legacy HTTP+SSE transport: a POST to / is
// refused (405), a GET opens the event stream (whose first event is the
// endpoint, unless early is set: then an endless line comes first), and
// the answers to what is POSTed to /msg come on it: an empty result, and
// for tools/list an endless line.
func legacyServer(t *testing.T, early bool) *httptest.Server {
	answers := make(chan string, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			if early {
				endless(w, r, ": ", false)
				return
			}
			_, _ = io.WriteString(w, "event: endpoint\ndata: /msg\n\n")
			w.(http.Flusher).Flush()
			for {
				select {
				case a := <-answers:
					if a == "endless" {
						endless(w, r, "event: message\ndata: {", false)
						return
					}
					_, _ = io.WriteString(w, "event: message\ndata: "+a+"\n\n")
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		case r.URL.Path == "/msg":
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			w.WriteHeader(http.StatusAccepted)
			m := requestID.FindSubmatch(body)
			switch {
			case m == nil:
			case strings.Contains(string(body), `"tools/list"`):
				answers <- "endless"
			case strings.Contains(string(body), `"initialize"`):
				answers <- fmt.Sprintf(`{"jsonrpc":"2.0","id":"%s","result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"x","version":"1"}}}`, m[1])
			default:
				answers <- fmt.Sprintf(`{"jsonrpc":"2.0","id":"%s","result":{}}`, m[1])
			}
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestLegacyStreamPastTheLimit: over the legacy HTTP+SSE transport, whose
// one event stream carries every answer, a line past the limit closes the
// stream and fails the call waiting on it at once, and every later call
// too; a line past the limit before the endpoint event fails the
// handshake at once. The handshake itself (small answers) works.
func TestLegacyStreamPastTheLimit(t *testing.T) {
	const want = "tools/list: an event in the event stream was over the 8 MiB message limit, so the harness closed the stream"
	t.Run("answer", func(t *testing.T) {
		h, err := OpenHTTP(legacyServer(t, false).URL, nil, nil, 2*boundWait)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		ctx, cancel := context.WithTimeout(context.Background(), boundWait)
		defer cancel()
		if _, err := h.Initialize(ctx, LegacyVersion); err != nil || h.Transport() != "http-sse" {
			t.Fatalf("the legacy handshake: %v over %s", err, h.Transport())
		}
		for i := range 2 {
			start := time.Now()
			_, err := h.Request(ctx, "tools/list", map[string]any{})
			if took := time.Since(start); err == nil || err.Error() != want || took > boundWait/3 {
				t.Errorf("call %d: got %v after %s; want %q at once", i, err, took, want)
			}
		}
	})
	t.Run("before-endpoint", func(t *testing.T) {
		h, err := OpenHTTP(legacyServer(t, true).URL, nil, nil, 2*boundWait)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		ctx, cancel := context.WithTimeout(context.Background(), boundWait)
		defer cancel()
		start := time.Now()
		_, err = h.Initialize(ctx, LegacyVersion)
		took := time.Since(start)
		if err == nil || !strings.HasSuffix(err.Error(), "the legacy HTTP+SSE transport failed too: an event in the event stream was over the 8 MiB message limit, so the harness closed the stream") {
			t.Fatalf("got %v", err)
		}
		if took > boundWait/3 {
			t.Errorf("the handshake took %s of its %s", took, boundWait)
		}
	})
}
