package session

import (
	"encoding/json"
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

// DiscoverBound bounds how long a start waits for the answer to
// server/discover, the only request a server gets until it answers it,
// before the legacy initialize goes out: at most half the time left to the
// start (the other half is the legacy handshake's). A server that answers
// an unknown method (-32601, as a legacy server should) costs one round
// trip; only a server that ignores server/discover costs the bound. Nothing
// else is sent meanwhile, not even a ping: a server that is still starting
// reads its input only when it is ready, and a dual-era server (the
// official TypeScript SDK v2's serveStdio) decides its era on the first
// messages it reads, so any legacy message beside the discover forks the
// session. A start on a loaded machine was measured at 9 s.
var DiscoverBound = 15 * time.Second

// DiscoverGrace is how long, after a legacy initialize answered while
// server/discover was still pending, the start waits for a late discover
// answer: a server that reads in order answers discover first, so one that
// answers both within the grace answered both eras on one connection.
var DiscoverGrace = 500 * time.Millisecond

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
