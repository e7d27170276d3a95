package session

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sealmark/sealmark/packs"
)

// requester is what the handshake needs of a session, stdio or HTTP.
type requester interface {
	Request(ctx context.Context, method string, params any) (*packs.Response, error)
	Notify(ctx context.Context, method string, params any) error
}

// Initialize finds the server's era and completes its handshake (see
// negotiate). Legacy: initialize with the given protocol version and an
// empty capability set, then notifications/initialized. Modern: the
// DiscoverResult, and every later request carries the modern _meta. An
// error means the server did not complete it; the returned Init holds what
// was seen either way.
func (s *Session) Initialize(ctx context.Context, version string) (packs.Init, error) {
	in, neg, err := negotiate(ctx, s, s.setModern, version)
	s.mu.Lock()
	s.negotiation = neg
	s.mu.Unlock()
	return in, err
}

// InitializeAs completes the handshake of an era already known, sending
// nothing of the other era: EraModern sends server/discover alone and
// awaits its answer within ctx; EraLegacy sends initialize alone.
func (s *Session) InitializeAs(ctx context.Context, era, version string) (packs.Init, error) {
	return initializeAs(ctx, s, s.setModern, era, version)
}

// Negotiated says how Initialize found the server's era.
func (s *Session) Negotiated() Negotiation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.negotiation
}

// setModern switches the session to the modern era's requests.
func (s *Session) setModern(version string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modern = version
}

// ListTools walks tools/list page by page; see listTools.
func (s *Session) ListTools(ctx context.Context, maxPages int) ([]packs.Tool, error) {
	return listTools(ctx, s, maxPages)
}

func initialize(ctx context.Context, s requester, version string) (packs.Init, error) {
	in := packs.Init{Requested: version}
	resp, err := s.Request(ctx, "initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": ClientName, "version": ClientVersion},
	})
	if err != nil {
		return in, fmt.Errorf("initialize: %w", err)
	}
	if resp.Error != nil {
		in.Error = resp.Error
		return in, fmt.Errorf("initialize: the server answered %s", resp.Brief())
	}
	in.Result = resp.Result
	var r struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
		ServerInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(resp.Result, &r); err != nil {
		return in, fmt.Errorf("initialize: the result is not an object: %v", err)
	}
	in.Version, in.Capabilities = r.ProtocolVersion, r.Capabilities
	in.Server.Name, in.Server.Version = r.ServerInfo.Name, r.ServerInfo.Version
	if err := s.Notify(ctx, "notifications/initialized", nil); err != nil {
		return in, fmt.Errorf("notifications/initialized: %w", err)
	}
	return in, nil
}

// listTools walks tools/list page by page with raw JSON-RPC, so one tool
// with a malformed schema does not hide the others. It stops at maxPages, at
// a repeated cursor, or at the first error, and says which.
func listTools(ctx context.Context, s requester, maxPages int) ([]packs.Tool, error) {
	var tools []packs.Tool
	seen := map[string]bool{}
	var cursor *string
	for page := 0; ; page++ {
		if page == maxPages {
			return tools, fmt.Errorf("tools/list: still returning a nextCursor after %d pages", maxPages)
		}
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = *cursor
		}
		resp, err := s.Request(ctx, "tools/list", params)
		if err != nil {
			return tools, err
		}
		if resp.Error != nil {
			return tools, fmt.Errorf("tools/list: the server answered %s", resp.Brief())
		}
		got, next, err := pageTools(resp.Result)
		if err != nil {
			return tools, fmt.Errorf("tools/list: the result is malformed: %v", err)
		}
		tools = append(tools, got...)
		if next == "" {
			return tools, nil
		}
		if seen[next] {
			return tools, fmt.Errorf("tools/list: cursor %q came back twice (the pages loop)", next)
		}
		seen[next] = true
		cursor = &next
	}
}
