package core_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/httpfixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/core"
)

// runHTTP runs the HTTP transport checks against the HTTP fixture, which
// the harness starts with --start semantics.
func runHTTP(t *testing.T, flaws string) *report.Report {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	e, err := engine.New(engine.Config{
		Start:      self + " " + httpfixture.Verb + " -addr 127.0.0.1:{port} -flaws=" + flaws,
		URL:        "http://127.0.0.1:{port}/mcp",
		Headers:    nil,
		Catalog:    []packs.Pack{{Name: "http", Doc: "the HTTP transport checks", Probes: core.HTTPProbes}},
		SandboxDir: t.TempDir(), StartTimeout: 10 * time.Second, CallTimeout: 2 * time.Second,
		StdinGrace: 500 * time.Millisecond, TermGrace: 500 * time.Millisecond,
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep := e.Run(ctx, engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	return rep
}

// TestHTTPTwins proves each HTTP transport check both ways.
func TestHTTPTwins(t *testing.T) {
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
	self, err := os.Executable()
	require.NoError(t, err)
	e, err := engine.New(engine.Config{
		Start: self + " " + httpfixture.Verb + " -addr 127.0.0.1:{port} -flaws=echo-canary", URL: "http://127.0.0.1:{port}/mcp",
		Packs: []string{"core"}, SandboxDir: t.TempDir(), StartTimeout: 10 * time.Second, CallTimeout: 2 * time.Second,
	})
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	require.Empty(t, rep.HarnessError)
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
