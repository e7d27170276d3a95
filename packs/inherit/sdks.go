package inherit

import (
	"encoding/json"
	"regexp"
)

// The shapes of the calibrated SDKs' first answers: the top-level members
// of their DiscoverResult and InitializeResult, in the order each encodes
// them (measured: docs/sdk-calibration.md).
var (
	mcpGoDiscover = []string{"_meta", "resultType", "ttlMs", "cacheScope", "supportedVersions", "capabilities"}
	goSDKDiscover = []string{"resultType", "_meta", "ttlMs", "cacheScope", "supportedVersions", "capabilities"}
	goSDKInit     = []string{"capabilities", "protocolVersion", "serverInfo"}
)

// withInstructions is shape with the optional instructions member where
// the SDK puts it.
func withInstructions(shape []string, at int) []string {
	out := append([]string{}, shape[:at]...)
	out = append(out, "instructions")
	return append(out, shape[at:]...)
}

// Messages the SDKs' behaviours give, shared by both Go SDKs.
var (
	metaServedAsLegacy    = regexp.MustCompile(`^tools/list (without _meta|whose _meta lacks (protocolVersion|clientCapabilities)) was answered with a result, want error -32602$`)
	versionServedAsLegacy = regexp.MustCompile(`^tools/list at protocol \S+ was answered with a result, want error -32022$`)
	noOriginCheck         = regexp.MustCompile(`^initialize with Origin \S+ was answered 200, want 403$`)
)

// SDKs are the calibrated SDKs, each checked over stdio and streamable
// HTTP with the server of internal/fixture/sdkservers.
var SDKs = []SDK{
	{
		Name: "mcp-go", Version: "v1.2.1", Module: "github.com/mark3labs/mcp-go",
		// Its InitializeResult has the common order (protocolVersion,
		// capabilities, serverInfo) and tells nothing; its DiscoverResult
		// does, with cacheScope "private".
		Shapes: [][]string{mcpGoDiscover, withInstructions(mcpGoDiscover, len(mcpGoDiscover))},
		Extra: func(r map[string]json.RawMessage) bool {
			return string(r["cacheScope"]) == `"private"`
		},
		Behaviours: []Behaviour{
			{Probe: "CORE-MODERN-META", Transport: "stdio", Message: metaServedAsLegacy,
				Why: "over stdio it serves a request without a modern _meta as a legacy request (a legacy result), where 2026-07-28 asks for -32602"},
			{Probe: "CORE-MODERN-UNSUPPORTED-VERSION", Transport: "stdio", Message: versionServedAsLegacy,
				Why: "over stdio it serves a request at a protocol version it does not support as a legacy request, where 2026-07-28 asks for -32022"},
			{Probe: "CORE-MODERN-UNSUPPORTED-VERSION", Transport: "http", Message: regexp.MustCompile(`^tools/list at protocol \S+ was answered with HTTP 400 and no answer, want HTTP 400 and error -32022$`),
				Why: "its streamable HTTP handler answers an unsupported MCP-Protocol-Version with a plain-text 400 (\"Unsupported protocol version: ...\"), no JSON-RPC error -32022"},
			{Probe: "CORE-HTTP-ORIGIN", Transport: "http", Message: noOriginCheck,
				Why: "its streamable HTTP server checks no Origin header unless the server sets one up"},
			{Probe: "CORE-INVALID-REQUEST", Transport: "stdio", Message: regexp.MustCompile(`^\d+ of \d+ invalid requests were not answered with error -32600: `),
				Why: "it answers a request without a method -32601, a non-string method or an empty array -32700, and an object or null id not at all"},
			{Probe: "CORE-INVALID-PARAMS", Transport: "stdio", Message: regexp.MustCompile(`^tools/list with params \S+ was answered with error -32600, want error -32602$`),
				Why: "it answers params it cannot decode with -32600 (\"unparsable tools/list request\")"},
		},
	},
	{
		Name: "go-sdk", Version: "v1.8.0", Module: "github.com/modelcontextprotocol/go-sdk",
		Shapes: [][]string{goSDKDiscover, withInstructions(goSDKDiscover, len(goSDKDiscover)), goSDKInit, withInstructions(goSDKInit, 1)},
		Behaviours: []Behaviour{
			{Probe: "CORE-MODERN-META", Transport: "stdio", Message: metaServedAsLegacy,
				Why: "over stdio it serves a request without a modern _meta as a legacy request (a legacy result), where 2026-07-28 asks for -32602"},
			{Probe: "CORE-MODERN-UNSUPPORTED-VERSION", Transport: "stdio", Message: versionServedAsLegacy,
				Why: "over stdio it serves a request at a protocol version it does not support as a legacy request, where 2026-07-28 asks for -32022"},
			{Probe: "CORE-MALFORMED-INPUT", Transport: "stdio", Message: regexp.MustCompile(`^the server exited after malformed input`),
				Why: "its StdioTransport ends the session on a line that is not JSON, and Server.Run returns (\"invalid character ...\"), so the server exits"},
			{Probe: "CORE-CAPABILITIES-SERVED", Message: regexp.MustCompile(`^the server answers (resources|prompts)/list but did not declare the (resources|prompts) capability$`),
				Why: "it answers resources/list and prompts/list with empty lists although it declares neither capability when none were added"},
			{Probe: "CORE-HTTP-ORIGIN", Transport: "http", Message: noOriginCheck,
				Why: "its StreamableHTTPHandler checks no Origin header by default"},
			{Probe: "CORE-UNKNOWN-METHOD", Transport: "http", Message: regexp.MustCompile(`^an unknown method got no answer but transport error .*JSON RPC not handled`),
				Why: "its StreamableHTTPHandler answers an unknown method with HTTP 400 and plain text (\"JSON RPC not handled\"), no JSON-RPC error -32601"},
			{Probe: "CORE-LOGGING-SET-LEVEL", Message: regexp.MustCompile(`^logging/setLevel with an invalid level was accepted, want error -32602$`),
				Why: "it accepts any logging level (an empty result for \"loud\")"},
		},
	},
}
