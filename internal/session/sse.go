package session

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// The legacy HTTP+SSE transport (protocol 2024-11-05, deprecated since):
// a GET opens an event stream whose first "endpoint" event names the URL
// to POST messages to; answers come back on the stream. A URL that refuses
// the streamable HTTP initialize POST with a 4xx gets it (the backward
// compatibility rule of basic/transports).

// sseEndpointWait bounds the wait for the endpoint event when the start's
// context has no deadline.
const sseEndpointWait = 10 * time.Second

// fallbackSSE replaces the streamable HTTP transport with the legacy
// HTTP+SSE one on the same URL and the same headers, and waits for its
// endpoint event.
func (h *HTTP) fallbackSSE(ctx context.Context) error {
	// The event stream lives as long as the session: its client has no
	// overall timeout (the streamable client's would cut it), only the
	// loopback dialer and the response-header bound.
	stream := *h.client
	stream.Timeout = 0
	wait := sseEndpointWait
	if dl, ok := ctx.Deadline(); ok {
		wait = max(time.Until(dl), time.Millisecond)
	}
	tr, err := transport.NewSSE(h.url,
		transport.WithHTTPClient(&stream),
		transport.WithHeaders(h.headers),
		transport.WithEndpointTimeout(wait),
	)
	if err != nil {
		return err
	}
	tr.SetNotificationHandler(h.notified)
	// Not ctx: the stream's request is bound to Start's context, and the
	// start's context ends when the start does. WithEndpointTimeout bounds
	// the wait instead, and a stream the bound closed (a line past the
	// message limit, bound.go) ends it at once.
	started := make(chan error, 1)
	go func() { started <- tr.Start(context.Background()) }()
	select {
	case err := <-started:
		if err != nil {
			_ = tr.Close()
			return err
		}
	case <-h.brokenCh:
		_ = tr.Close()
		h.mu.Lock()
		err := h.broken
		h.mu.Unlock()
		return err
	}
	h.mu.Lock()
	old := h.tr
	h.tr, h.sse = tr, true
	h.mu.Unlock()
	_ = old.Close()
	return nil
}
