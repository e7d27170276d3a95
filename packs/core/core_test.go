package core_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/fixture/httpfixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/core"
)

func TestMain(m *testing.M) {
	fixture.Dispatch()
	httpfixture.Dispatch()
	smbin.Dispatch()
	core.ExitGrace = time.Second
	os.Exit(m.Run())
}

func TestPackDefinition(t *testing.T) {
	for _, err := range core.Pack.Check() {
		t.Error(err)
	}
}

// runCore runs the core pack against the fixture server with the given flaws.
func runCore(t *testing.T, flaws string) *report.Report {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	e, err := engine.New(engine.Config{
		Command: self, Args: []string{fixture.Verb, "-flaws=" + flaws},
		Packs: []string{"core"}, SandboxDir: t.TempDir(),
		StartTimeout: 10 * time.Second, CallTimeout: time.Second,
		StdinGrace: 500 * time.Millisecond, TermGrace: 500 * time.Millisecond,
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return e.Run(ctx, engine.Hooks{})
}

// TestTwins proves every core probe both ways: the good fixture fails no
// probe, and each twin fails exactly the probes it was built to fail, with
// the finding it was built to produce. A missing finding fails as loudly as
// an unexpected one.
func TestTwins(t *testing.T) {
	twins := []struct {
		flaws string
		want  map[string]string // probe id → a finding message must contain this
	}{
		{"", nil},
		{"echo-canary", map[string]string{"CORE-SECRET-ECHO": "SEALMARK_CANARY echoed in the response to tools/call debug_info"}},
		{"canary-in-description", map[string]string{"CORE-SECRET-ECHO": "SEALMARK_FAKE_API_KEY echoed in the response to tools/list"}},
		{"canary-in-log", map[string]string{"CORE-SECRET-ECHO": "SEALMARK_FAKE_API_KEY echoed in the server log"}},
		{"stdout-banner", map[string]string{"CORE-STDOUT-JSONRPC": "stdout line 1 is a line that is not JSON"}},
		{"ignore-stdin-close", map[string]string{"CORE-EXIT-ON-STDIN-CLOSE": "still running"}},
		{"wrong-unknown-method-code", map[string]string{"CORE-UNKNOWN-METHOD": "answered with error -32603"}},
		{"no-unknown-method-answer", map[string]string{"CORE-UNKNOWN-METHOD": "no answer to an unknown method"}},
		{"die-on-garbage", map[string]string{"CORE-MALFORMED-INPUT": "the server exited after malformed input"}},
		{"bad-schema", map[string]string{"CORE-TOOLS-LIST": `tool "add_note": inputSchema is missing or null`}},
		{"bad-tool-name", map[string]string{"CORE-TOOLS-LIST": `tool name "list_notes" appears more than once`}},
		{"pagination-loop", map[string]string{"CORE-TOOLS-LIST": "came back twice"}},
		{"bad-init", map[string]string{"CORE-INITIALIZE": `negotiated protocolVersion "1999-01-01"`}},
		{"undeclared-tools", map[string]string{"CORE-INITIALIZE": "did not declare the tools capability"}},
		{"crash-on-call", map[string]string{"CORE-TOOL-SWEEP": "with valid arguments ended the server"}},
		{"hang-on-call", map[string]string{"CORE-TOOL-SWEEP": "did not answer within"}},
		{"write-outside", map[string]string{"CORE-WRITES-OUTSIDE-ROOT": "changed a file outside its root: created root-evil/written-by-server.txt"}},
		{"daemon", map[string]string{"CORE-NO-ORPHANS": "sm-sleep 600"}},
		{"fork-daemon", map[string]string{"CORE-NO-ORPHANS": "-sleeper"}},
		{"listen", map[string]string{"CORE-NO-LISTENER": "127.0.0.1"}},
		{"listen-all", map[string]string{"CORE-NO-LISTENER": "all interfaces"}},
	}
	for _, tw := range twins {
		name := tw.flaws
		if name == "" {
			name = "good"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rep := runCore(t, tw.flaws)
			require.Empty(t, rep.HarnessError)
			require.Len(t, rep.Packs, 1)
			seen := map[string]bool{}
			for _, p := range rep.Packs[0].Probes {
				seen[p.ID] = true
				want, expected := tw.want[p.ID]
				switch {
				case expected && p.Verdict != packs.Failed:
					t.Errorf("%s: verdict %s (%s), want fail with %q", p.ID, p.Verdict, p.Reason, want)
				case expected && !anyFinding(p, want):
					t.Errorf("%s: findings %v, want one containing %q", p.ID, p.Findings, want)
				case !expected && p.Verdict == packs.Failed:
					t.Errorf("%s: unexpected fail: %v", p.ID, p.Findings)
				case !expected && p.Verdict == packs.Errored:
					t.Errorf("%s: harness error: %s", p.ID, p.Reason)
				}
			}
			for id := range tw.want {
				if !seen[id] {
					t.Errorf("%s: probe did not run", id)
				}
			}
		})
	}
}

func anyFinding(p report.Probe, want string) bool {
	for _, f := range p.Findings {
		if strings.Contains(f.Message, want) {
			return true
		}
	}
	return false
}

// TestSecretEchoEvidenceNamesNoText checks that the evidence of a canary
// echo names the variable and the place and the report masks the value.
func TestSecretEchoEvidenceNamesNoText(t *testing.T) {
	rep := runCore(t, "echo-canary")
	var buf strings.Builder
	require.NoError(t, report.WriteJSON(&buf, rep))
	out := buf.String()
	require.Contains(t, out, "SEALMARK_CANARY echoed")
	require.NotContains(t, out, "sm-canary-", "a canary value reached the report")
	require.NotContains(t, out, "sk-sealmark-fake-", "a canary value reached the report")
}
