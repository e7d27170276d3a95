package packs

import (
	"slices"

	"github.com/sealmark/sealmark/internal/mcpwire"
)

// The MCP protocol versions, eras, _meta keys and error codes: the one
// place Sealmark writes them. The session speaks them; probes judge by
// them.
const (
	// LegacyVersion is the newest protocol version of the initialize era,
	// the one the harness asks for on a legacy server.
	LegacyVersion = "2025-11-25"
	// ModernVersion is the protocol version of the modern era (no
	// initialize, _meta on every request, server/discover), the one the
	// harness asks for first.
	ModernVersion = "2026-07-28"
)

// KnownVersions are the protocol versions the specification has defined,
// oldest first: the initialize era's (mcpwire.Versions, which the servers
// Sealmark ships and tests with speak; LegacyVersion is its newest), then
// ModernVersion.
var KnownVersions = append(slices.Clone(mcpwire.Versions), ModernVersion)

// The _meta keys of a modern request and result.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
)

// Modern error codes (spec 2026-07-28 basic/index).
const (
	CodeHeaderMismatch             = -32020
	CodeMissingClientCapability    = -32021
	CodeUnsupportedProtocolVersion = -32022
)
