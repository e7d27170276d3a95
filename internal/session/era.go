package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// ModernVersion is the modern era's version (packs.ModernVersion).
const ModernVersion = packs.ModernVersion

// Eras, as the report records them.
const (
	EraLegacy = "legacy"
	EraModern = "modern"
)

// The _meta keys and error codes of the modern era (see packs).
const (
	MetaProtocolVersion            = packs.MetaProtocolVersion
	MetaClientCapabilities         = packs.MetaClientCapabilities
	MetaClientInfo                 = packs.MetaClientInfo
	MetaServerInfo                 = packs.MetaServerInfo
	MetaLogLevel                   = packs.MetaLogLevel
	CodeHeaderMismatch             = packs.CodeHeaderMismatch
	CodeMissingClientCapability    = packs.CodeMissingClientCapability
	CodeUnsupportedProtocolVersion = packs.CodeUnsupportedProtocolVersion
)

// DiscoverWait bounds how long a start waits for the answer to
// server/discover before it also sends the legacy initialize. A server that
// answers an unknown method (-32601, as a legacy server should) costs one
// round trip; only a server that ignores it costs DiscoverWait. The wait
// does not decide the era on its own: the discover answer is still awaited
// beside initialize, so a modern server slower to start than DiscoverWait
// is still found modern, and DiscoverWait can be short. 500 ms is over ten
// times the slowest discover answer measured from a real server at start
// (24–43 ms), and a tenth of the 5 s a client library waits by default.
var DiscoverWait = 500 * time.Millisecond

// Era names the era of a negotiated protocol version: "modern" from
// 2026-07-28 on, "legacy" before, "" for none.
func Era(version string) string {
	switch {
	case version == "":
		return ""
	case version >= ModernVersion:
		return EraModern
	default:
		return EraLegacy
	}
}

// Meta is the _meta a modern request carries: the protocol version, the
// client's capabilities (none) and the client's name.
func Meta(version string) map[string]any {
	return map[string]any{
		MetaProtocolVersion:    version,
		MetaClientCapabilities: map[string]any{},
		MetaClientInfo:         map[string]any{"name": ClientName, "version": ClientVersion},
	}
}

// withMeta returns params with the modern _meta added: keys the params'
// own _meta already has (a progressToken) are kept. params is not changed.
// Params that are not an object are sent as they are.
func withMeta(params any, version string) any {
	var m map[string]any
	switch v := params.(type) {
	case nil:
		m = map[string]any{}
	case map[string]any:
		m = maps.Clone(v)
	case json.RawMessage:
		if json.Unmarshal(v, &m) != nil || m == nil {
			return params
		}
	default:
		return params
	}
	meta := Meta(version)
	if own, ok := m["_meta"].(map[string]any); ok {
		maps.Copy(meta, own)
	}
	m["_meta"] = meta
	return m
}

// discoverParams are the params of the harness's server/discover.
func discoverParams() map[string]any { return map[string]any{"_meta": Meta(ModernVersion)} }

// classify reads the answer to server/discover: modern when it is a
// DiscoverResult naming ModernVersion, or an error only a modern server
// sends (a header mismatch or a missing client capability). Anything else
// (-32601, another error, a result that is not a DiscoverResult, or an
// UnsupportedProtocolVersion error that does not list ModernVersion, a
// version the harness does not speak) means the legacy handshake is next.
// The fallback is never keyed to one specific code.
func classify(resp *packs.Response) bool {
	if resp == nil {
		return false
	}
	if resp.Error != nil {
		switch resp.Error.Code {
		case CodeHeaderMismatch, CodeMissingClientCapability:
			return true
		case CodeUnsupportedProtocolVersion:
			var d struct {
				Supported []string `json:"supported"`
			}
			_ = json.Unmarshal(resp.Error.Data, &d)
			return slices.Contains(d.Supported, ModernVersion)
		}
		return false
	}
	var r struct {
		SupportedVersions []string                   `json:"supportedVersions"`
		Capabilities      map[string]json.RawMessage `json:"capabilities"`
	}
	if json.Unmarshal(resp.Result, &r) != nil {
		return false
	}
	if r.SupportedVersions != nil {
		return slices.Contains(r.SupportedVersions, ModernVersion)
	}
	// A DiscoverResult without its version list still declares capabilities;
	// an empty result {} is a legacy server answering anything.
	return r.Capabilities != nil
}

// modernInit is the Init of a modern start, read from the DiscoverResult.
func modernInit(resp *packs.Response) packs.Init {
	in := packs.Init{Requested: ModernVersion, Version: ModernVersion, Result: resp.Result}
	var r struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		Meta         map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(resp.Result, &r)
	in.Capabilities = r.Capabilities
	_ = json.Unmarshal(r.Meta[MetaServerInfo], &in.Server)
	return in
}

// answer is one request's outcome.
type answer struct {
	resp *packs.Response
	err  error
}

// negotiate finds the server's era and completes its handshake. It sends
// server/discover with a modern _meta; a modern answer ends it there (set
// is called with ModernVersion before it returns). Any other answer
// starts the legacy handshake with version. With no answer within
// DiscoverWait, a ping tells a server still starting (no answer to either:
// the discover is awaited) from one that ignores the discover (it answers
// the ping: the legacy handshake goes out, the discover answer still
// awaited beside it, and a modern one wins).
func negotiate(ctx context.Context, s requester, set func(version string), version string) (packs.Init, error) {
	dctx, dcancel := context.WithCancel(ctx)
	defer dcancel()
	disc := make(chan answer, 1)
	go func() {
		resp, err := s.Request(dctx, "server/discover", discoverParams())
		disc <- answer{resp, err}
	}()
	modern := func(a answer) (packs.Init, error) {
		set(ModernVersion)
		return modernInit(a.resp), nil
	}
	decide := func(a answer) (packs.Init, error) {
		if a.err == nil && classify(a.resp) {
			return modern(a)
		}
		if a.err != nil && errors.Is(a.err, packs.ErrClosed) {
			return packs.Init{Requested: ModernVersion}, fmt.Errorf("server/discover: %w", a.err)
		}
		return initialize(ctx, s, version)
	}
	timer := time.NewTimer(DiscoverWait)
	defer timer.Stop()
	select {
	case a := <-disc:
		return decide(a)
	case <-timer.C:
	case <-ctx.Done():
		return packs.Init{Requested: version}, fmt.Errorf("server/discover: %w", ctx.Err())
	}
	// No answer yet. Is the server reading its input? A ping sent after
	// the discover is answered after it by a server that reads in order,
	// so a server still starting (one that connects to a database first)
	// answers neither and the discover is awaited, however long the start
	// takes: initialize never goes out to a server that has not yet read
	// the discover, which a dual-era server would answer too and settle
	// into the legacy protocol. Only a server that answers the ping (with
	// anything) and not the discover, within another DiscoverWait, gets
	// the legacy handshake, beside the discover still pending.
	alive := make(chan answer, 1)
	go func() {
		resp, err := s.Request(dctx, "ping", nil)
		alive <- answer{resp, err}
	}()
	select {
	case a := <-disc:
		return decide(a)
	case a := <-alive:
		if a.err != nil && (errors.Is(a.err, packs.ErrClosed) || ctx.Err() != nil) {
			return packs.Init{Requested: version}, fmt.Errorf("server/discover: no answer, and ping: %w", a.err)
		}
		grace := time.NewTimer(DiscoverWait)
		defer grace.Stop()
		select {
		case a := <-disc:
			return decide(a)
		case <-grace.C:
		case <-ctx.Done():
			return packs.Init{Requested: version}, fmt.Errorf("server/discover: %w", ctx.Err())
		}
	case <-ctx.Done():
		return packs.Init{Requested: version}, fmt.Errorf("server/discover: %w", ctx.Err())
	}
	// No answer yet: the legacy handshake goes out beside the discover.
	ictx, icancel := context.WithCancel(ctx)
	defer icancel()
	type initAnswer struct {
		in  packs.Init
		err error
	}
	legacy := make(chan initAnswer, 1)
	go func() {
		in, err := initialize(ictx, s, version)
		legacy <- initAnswer{in, err}
	}()
	var pending *initAnswer
	for disc != nil || pending == nil {
		select {
		case a := <-disc:
			if a.err == nil && classify(a.resp) {
				icancel()
				return modern(a)
			}
			disc = nil
		case l := <-legacy:
			if l.err == nil {
				return l.in, nil
			}
			pending = &l // a failed initialize: a modern discover answer may still come
			legacy = nil
		}
	}
	return pending.in, pending.err
}
