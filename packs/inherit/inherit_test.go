package inherit

import (
	"testing"
)

// The first answers measured on the calibration servers
// (internal/fixture/sdkservers), and others'.
const (
	mcpGoDiscoverResult = `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"resultType":"complete","ttlMs":0,"cacheScope":"private","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`
	goSDKDiscoverResult = `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28"],"capabilities":{"logging":{},"tools":{"listChanged":true}}}`
	goSDKInitResult     = `{"capabilities":{"logging":{},"tools":{"listChanged":true}},"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}`
	// The common InitializeResult order (TypeScript SDK, mcp-go, hand-written).
	commonInitResult = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`
	// A map-encoded DiscoverResult (sorted members), as a hand-written Go server sends.
	sortedDiscoverResult = `{"_meta":{},"cacheScope":"public","capabilities":{},"resultType":"complete","supportedVersions":["2026-07-28"],"ttlMs":60000}`
)

func TestIdentify(t *testing.T) {
	for result, want := range map[string]string{
		mcpGoDiscoverResult:  "mcp-go",
		goSDKDiscoverResult:  "go-sdk",
		goSDKInitResult:      "go-sdk",
		commonInitResult:     "",
		sortedDiscoverResult: "",
		`not json`:           "",
		`[]`:                 "",
	} {
		sdk, ok := Identify([]byte(result))
		if ok != (want != "") || sdk.Name != want {
			t.Errorf("Identify(%s) = %q, %v; want %q", result, sdk.Name, ok, want)
		}
	}
}

func TestLabel(t *testing.T) {
	meta := Finding{Message: "tools/list without _meta was answered with a result, want error -32602"}
	cases := []struct {
		server Server
		probe  string
		f      Finding
		want   string
	}{
		{Server{"stdio", []byte(mcpGoDiscoverResult)}, "CORE-MODERN-META", meta, "mcp-go v1.2.1"},
		{Server{"stdio", []byte(goSDKDiscoverResult)}, "CORE-MODERN-META", meta, "go-sdk v1.8.0"},
		// the same finding on a server that is not built on the SDK
		{Server{"stdio", []byte(sortedDiscoverResult)}, "CORE-MODERN-META", meta, ""},
		// another transport than the one measured
		{Server{"http", []byte(mcpGoDiscoverResult)}, "CORE-MODERN-META", meta, ""},
		// another probe, another message
		{Server{"stdio", []byte(mcpGoDiscoverResult)}, "CORE-MODERN-REMOVED-METHODS", meta, ""},
		{Server{"stdio", []byte(mcpGoDiscoverResult)}, "CORE-MODERN-META", Finding{Message: "tools/list without _meta was answered with error -32601, want error -32602"}, ""},
	}
	for _, c := range cases {
		if got := Label(c.server, c.probe, c.f); got != c.want {
			t.Errorf("Label(%s, %s, %q) = %q, want %q", c.server.Transport, c.probe, c.f.Message, got, c.want)
		}
	}
}
