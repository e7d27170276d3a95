package session

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs"
)

// TestTransportErrorIsNoTimeout: an HTTP server that refuses a request
// with 413 at once gives a transport error that says so and how soon, not
// "no answer before the deadline"; a server that never answers gives the
// timeout.
func TestTransportErrorIsNoTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		switch {
		case strings.Contains(string(body), `"initialize"`):
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":"sm-1","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"x","version":"1"}}}`))
		case strings.Contains(string(body), `"notifications/`):
			w.WriteHeader(http.StatusAccepted)
		case strings.Contains(string(body), `"hang"`):
			<-r.Context().Done()
		default:
			http.Error(w, "request entity too large", http.StatusRequestEntityTooLarge)
		}
	}))
	defer srv.Close()
	h, err := OpenHTTP(srv.URL, nil, nil, 5*time.Second)
	require.NoError(t, err)
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = h.Request(ctx, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	require.NoError(t, err)

	start := time.Now()
	_, err = h.Request(ctx, "tools/list", map[string]any{})
	require.Error(t, err)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.True(t, errors.Is(err, packs.ErrTransport), "%v", err)
	assert.False(t, errors.Is(err, packs.ErrNoAnswer), "%v", err)
	assert.Contains(t, err.Error(), "413")
	why := packs.Unanswered(err, 20*time.Second)
	assert.NotContains(t, why, "within 20s")
	assert.Regexp(t, `^no answer but transport error after [0-9.]+m?s: .*413`, why)

	short, cancelShort := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancelShort()
	_, err = h.Request(short, "hang", map[string]any{})
	assert.True(t, errors.Is(err, packs.ErrNoAnswer), "%v", err)
	assert.Equal(t, "no answer within 200ms", packs.Unanswered(err, 200*time.Millisecond))
}
