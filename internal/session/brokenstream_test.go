package session

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/packs"
)

// TestEventStreamEndsWithoutAnAnswer: a real loopback HTTP server answers
// a request with an event stream that breaks off (a chunked body cut
// mid-event: its connection closed) or that it ends cleanly, in both
// cases before the answer; the call fails at once with a transport error
// that says the stream ended without an answer and how, not the client's
// "unexpected nil response".
func TestEventStreamEndsWithoutAnAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"sm-")
		w.(http.Flusher).Flush()
		if strings.Contains(string(body), "broken") {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close() // the chunked body breaks off: no last chunk
			}
		}
		// Otherwise the handler returns: the body ends cleanly, with
		// half an event and no answer.
	}))
	t.Cleanup(srv.Close)
	for mode, want := range map[string]string{
		"broken": "the server's event stream ended without an answer (unexpected EOF: the body broke off before its end)",
		"closed": "the server's event stream ended without an answer (the server closed it)",
	} {
		t.Run(mode, func(t *testing.T) {
			h, err := OpenHTTP(srv.URL, nil, nil, 2*boundWait)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			ctx, cancel := context.WithTimeout(context.Background(), boundWait)
			defer cancel()
			_, err = h.Request(ctx, "tools/list", map[string]any{"cursor": mode})
			if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, packs.ErrTransport) {
				t.Fatalf("got %v; want a transport error saying %q", err, want)
			}
			if strings.Contains(err.Error(), "nil response") || errors.Is(err, packs.ErrNoAnswer) {
				t.Errorf("got %v; want the cause, not the client's words or a timeout", err)
			}
		})
	}
}
