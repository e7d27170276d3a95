package session

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs"
)

// lateContext is a call's context whose deadline has passed but whose
// timer has not yet run, as on a loaded machine: Deadline says when, Done
// closes only later.
type lateContext struct {
	context.Context
	deadline time.Time
	once     sync.Once
	done     chan struct{}
	after    time.Duration
}

func (c *lateContext) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *lateContext) Done() <-chan struct{} {
	c.once.Do(func() { time.AfterFunc(c.after, func() { close(c.done) }) })
	return c.done
}

func (c *lateContext) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// TestStreamCutAtTheDeadlineIsNoAnswer: a call whose answer streams as an
// event stream and never comes is cut by the HTTP client's own bound, set
// to the call timeout too; when that bound goes first (the call's deadline
// has passed but its timer has not run yet), the call still gets no answer
// within its deadline, not a transport error. (server-postgres behind an
// HTTP bridge made the statement-timeout probe inconclusive so, on a
// loaded machine, with "transport error after 10.003s: unexpected nil
// response".)
func TestStreamCutAtTheDeadlineIsNoAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		switch {
		case strings.Contains(string(body), `"initialize"`):
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":"sm-1","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"x","version":"1"}}}`))
		case strings.Contains(string(body), `"notifications/`):
			w.WriteHeader(http.StatusAccepted)
		default: // an event stream that never answers
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(30 * time.Second):
			}
		}
	}))
	defer srv.Close()
	const timeout = 300 * time.Millisecond
	h, err := OpenHTTP(srv.URL, nil, nil, timeout)
	require.NoError(t, err)
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = h.Request(ctx, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	require.NoError(t, err)

	late := &lateContext{Context: context.Background(), deadline: time.Now().Add(timeout), done: make(chan struct{}), after: 20 * time.Second}
	start := time.Now()
	_, err = h.Request(late, "tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{}})
	require.Error(t, err)
	assert.Less(t, time.Since(start), 10*time.Second, "the client's own bound cut the stream")
	assert.True(t, errors.Is(err, packs.ErrNoAnswer), "%v", err)
	assert.False(t, errors.Is(err, packs.ErrTransport), "%v", err)
}
