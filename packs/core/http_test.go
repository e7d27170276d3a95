package core_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/httpfixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/slowtest"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/core"
)

// runHTTP runs the HTTP transport checks against the HTTP fixture, which
// the harness starts with --start semantics.
func runHTTP(t *testing.T, flaws string) *report.Report {
	t.Helper()
	return runHTTPFixture(t, flaws, "/mcp", []packs.Pack{{Name: "http", Doc: "the HTTP transport checks", Probes: core.HTTPProbes}})
}

// runHTTPFixture starts the HTTP fixture with flaws for its URL path and
// runs catalog against it (nil: the core pack); the run must not fail.
func runHTTPFixture(t *testing.T, flaws, path string, catalog []packs.Pack) *report.Report {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	cfg := engine.Config{
		Start:      self + " " + httpfixture.Verb + " -addr 127.0.0.1:{port} -flaws=" + flaws,
		URL:        "http://127.0.0.1:{port}" + path,
		Catalog:    catalog,
		SandboxDir: t.TempDir(), StartTimeout: slowtest.Scale(10 * time.Second), CallTimeout: 2 * time.Second,
		StdinGrace: 500 * time.Millisecond, TermGrace: 500 * time.Millisecond,
	}
	if catalog == nil {
		cfg.Catalog, cfg.Packs = catalogue.All, []string{"core"}
	}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	// A bound for a hung run, not a speed test: on a loaded machine an
	// observed run (two starts, every probe, the observers) takes minutes.
	ctx, cancel := context.WithTimeout(context.Background(), runBound)
	defer cancel()
	rep := e.Run(ctx, engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	return rep
}

// TestHTTPTwins proves each HTTP transport check both ways.
func TestHTTPTwins(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every HTTP transport check's twins")
	}
	twins := []struct {
		flaws string
		want  map[string]string
	}{
		{"", nil},
		{"no-origin-check", map[string]string{"CORE-HTTP-ORIGIN": "initialize with Origin http://evil.example was answered 200, want 403"}},
		{"no-host-check", map[string]string{"CORE-HTTP-HOST": "initialize with Host evil.example was answered 200, want 403"}},
		{"session-400", map[string]string{
			"CORE-HTTP-UNKNOWN-SESSION": "unknown session id was answered 400, want 404",
			"CORE-HTTP-DELETED-SESSION": "deleted session was answered 400, want 404",
		}},
		{"notification-200", map[string]string{"CORE-HTTP-NOTIFICATION-202": "answered 200, want 202"}},
		{"no-version-check", map[string]string{"CORE-HTTP-PROTOCOL-VERSION": "answered 200, want 400"}},
		{"listen-all", map[string]string{"CORE-HTTP-LOOPBACK-ONLY": "listens on all interfaces"}},
		{"cors-any", map[string]string{"CORE-HTTP-CORS": "the MCP endpoint allows any origin (Access-Control-Allow-Origin: *)"}},
		{"cors-credentialed", map[string]string{"CORE-HTTP-CORS": "reflects a foreign Origin with credentials allowed"}},
	}
	for _, tw := range twins {
		name := tw.flaws
		if name == "" {
			name = "good"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rep := runHTTP(t, tw.flaws)
			for _, p := range rep.Packs[0].Probes {
				want, expected := tw.want[p.ID]
				switch {
				case expected && p.Verdict != packs.Failed:
					t.Errorf("%s: verdict %s (%s), want fail with %q", p.ID, p.Verdict, p.Reason, want)
				case expected && !anyFinding(p, want):
					t.Errorf("%s: findings %v, want one containing %q", p.ID, p.Findings, want)
				case !expected && p.Verdict != packs.Passed:
					t.Errorf("%s: verdict %s (%s) %v, want pass", p.ID, p.Verdict, p.Reason, p.Findings)
				}
			}
		})
	}
}

// TestHTTPSecretEcho: over HTTP the started server gets the canaries and
// secret-echo sees its responses.
func TestHTTPSecretEcho(t *testing.T) {
	rep := runHTTPFixture(t, "echo-canary", "/mcp", nil)
	var found bool
	for _, p := range rep.Packs[0].Probes {
		if p.ID == "CORE-SECRET-ECHO" {
			found = anyFinding(p, "SEALMARK_CANARY echoed in the response to tools/call debug_info")
		}
	}
	require.True(t, found, "secret-echo over HTTP")
	var buf strings.Builder
	require.NoError(t, report.WriteJSON(&buf, rep))
	require.NotContains(t, buf.String(), "sm-canary-")
}

// streamableOnly are the probes of the streamable HTTP transport's own
// rules, not applicable over the legacy HTTP+SSE transport.
var streamableOnly = []string{"CORE-HTTP-ORIGIN", "CORE-HTTP-HOST", "CORE-HTTP-UNKNOWN-SESSION", "CORE-HTTP-DELETED-SESSION",
	"CORE-HTTP-SESSION-ID", "CORE-HTTP-NOTIFICATION-202", "CORE-HTTP-PROTOCOL-VERSION"}

// TestSSE: a URL that refuses the streamable HTTP POST gets the legacy
// HTTP+SSE transport; core runs over it, the report records it, and the
// streamable-only probes are not applicable with the reason. The
// echo-canary twin proves that the session over SSE carries real answers.
func TestSSE(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: core over the legacy HTTP+SSE transport, both ways")
	}
	for _, flaws := range []string{"sse", "sse,echo-canary"} {
		t.Run(flaws, func(t *testing.T) {
			t.Parallel()
			rep := runHTTPFixture(t, flaws, "/sse", nil)
			require.Equal(t, "http-sse", rep.Protocol.Transport)
			require.Equal(t, "legacy", rep.Protocol.Era)
			require.Equal(t, "sealmark-httpfixture", rep.Protocol.ServerName)
			echo := flaws == "sse,echo-canary"
			for _, p := range rep.Packs[0].Probes {
				switch {
				case slices.Contains(streamableOnly, p.ID):
					if p.Verdict != packs.NotApplicable || !strings.Contains(p.Reason, "legacy HTTP+SSE") {
						t.Errorf("%s: verdict %s (%s), want not applicable over HTTP+SSE", p.ID, p.Verdict, p.Reason)
					}
				case p.ID == "CORE-SECRET-ECHO" && echo:
					if !anyFinding(p, "SEALMARK_CANARY echoed in the response to tools/call debug_info") {
						t.Errorf("%s: verdict %s %v, want the canary echo", p.ID, p.Verdict, findingsOf(p))
					}
				case p.Verdict == packs.Failed || p.Verdict == packs.Errored:
					t.Errorf("%s: verdict %s (%s) %v", p.ID, p.Verdict, p.Reason, findingsOf(p))
				}
				if testing.Verbose() {
					t.Logf("%s %s %s %v", p.ID, p.Verdict, p.Reason, findingsOf(p))
				}
			}
		})
	}
}

// TestModernHTTP: over streamable HTTP, a modern server is found modern;
// the modern rules are checked with their HTTP status codes, proven both
// ways, and the legacy session rules are not applicable.
func TestModernHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every modern HTTP twin of core over streamable HTTP")
	}
	for _, tw := range []struct {
		flaws string
		want  map[string]string
	}{
		{"modern", nil},
		{"modern-removed-200", map[string]string{"CORE-MODERN-REMOVED-METHODS": "ping, removed in 2026-07-28, was answered with HTTP 200 and error -32601, want HTTP 404 and error -32601"}},
		{"modern-no-version-header-check", map[string]string{"CORE-MODERN-HTTP-HEADERS": "tools/list with MCP-Protocol-Version 2025-11-25 and _meta protocolVersion 2026-07-28 was answered with HTTP 200 and a result, want HTTP 400 and error -32020"}},
		{"modern-no-method-header-check", map[string]string{"CORE-MODERN-HTTP-HEADERS": "tools/list without Mcp-Method was answered with HTTP 200 and a result, want HTTP 400 and error -32020"}},
		{"modern-no-name-header-check", map[string]string{"CORE-MODERN-HTTP-HEADERS": "tools/call whose Mcp-Name differs from the body was answered with HTTP 200 and error -32602, want HTTP 400 and error -32020"}},
		{"modern-get-delete-200", map[string]string{"CORE-MODERN-HTTP-NO-SESSIONS": "GET was answered 200, want 405"}},
		{"modern-session-minted", map[string]string{"CORE-MODERN-HTTP-NO-SESSIONS": "the server echoed the Mcp-Session-Id it was sent"}},
	} {
		t.Run(tw.flaws, func(t *testing.T) {
			t.Parallel()
			rep := runHTTPFixture(t, tw.flaws, "/mcp", nil)
			require.Equal(t, "modern", rep.Protocol.Era)
			require.Equal(t, "2026-07-28", rep.Protocol.Version)
			require.Equal(t, "http", rep.Protocol.Transport)
			pinned := map[string]packs.Verdict{
				"CORE-DISCOVER": packs.Passed, "CORE-MODERN-META": packs.Passed, "CORE-MODERN-UNSUPPORTED-VERSION": packs.Passed,
				"CORE-MODERN-REMOVED-METHODS": packs.Passed, "CORE-HTTP-ORIGIN": packs.Passed, "CORE-HTTP-HOST": packs.Passed,
				"CORE-HTTP-UNKNOWN-SESSION": packs.NotApplicable, "CORE-HTTP-DELETED-SESSION": packs.NotApplicable,
				"CORE-HTTP-SESSION-ID": packs.NotApplicable, "CORE-INITIALIZE": packs.NotApplicable, "CORE-PING": packs.NotApplicable,
				"CORE-MODERN-HTTP-HEADERS": packs.Passed, "CORE-MODERN-HTTP-NO-SESSIONS": packs.Passed,
				"CORE-MODERN-LEGACY-INITIALIZE": packs.Passed, "CORE-MODERN-RESULT-SHAPE": packs.Passed,
				"CORE-MODERN-ERROR-CODES": packs.Passed,
			}
			for _, p := range rep.Packs[0].Probes {
				want, expected := tw.want[p.ID]
				switch {
				case expected && !anyFinding(p, want):
					t.Errorf("%s: verdict %s %v, want a finding containing %q", p.ID, p.Verdict, findingsOf(p), want)
				case !expected && (p.Verdict == packs.Failed || p.Verdict == packs.Errored):
					t.Errorf("%s: verdict %s (%s) %v", p.ID, p.Verdict, p.Reason, findingsOf(p))
				case !expected && pinned[p.ID] != "" && p.Verdict != pinned[p.ID]:
					t.Errorf("%s: verdict %s (%s), want %s", p.ID, p.Verdict, p.Reason, pinned[p.ID])
				}
				if testing.Verbose() {
					t.Logf("%s %s %s %v", p.ID, p.Verdict, p.Reason, findingsOf(p))
				}
			}
		})
	}
}
