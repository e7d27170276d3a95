package core_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// everythingJS is the pinned @modelcontextprotocol/server-everything
// (testdata/npm/package.json), installed by .ci/run with npm ci.
const everythingJS = "../../testdata/npm/node_modules/everything/dist/index.js"

// everythingVerdicts pins the core pack's verdict on the real
// server-everything 2026.8.31 over stdio, probe by probe, so that a change
// in any verdict is a visible diff. Every failure below is the server's, as
// measured by hand (see the package's test report).
var everythingVerdicts = map[string]packs.Verdict{
	"CORE-INITIALIZE":          packs.Passed,
	"CORE-PING":                packs.Passed,
	"CORE-TOOLS-LIST":          packs.Passed,
	"CORE-TOOL-METADATA":       packs.Passed,
	"CORE-BOGUS-CURSOR":        packs.Failed, // ignores the cursor and answers the whole list
	"CORE-UNKNOWN-METHOD":      packs.Passed,
	"CORE-MALFORMED-INPUT":     packs.Passed,
	"CORE-REQUEST-IDS":         packs.Passed,
	"CORE-PARSE-ERROR":         packs.Failed, // the TS SDK's stdio transport drops bad lines silently
	"CORE-INVALID-REQUEST":     packs.Failed, // likewise, no -32600
	"CORE-BATCH":               packs.Passed, // ignored, which 2025-11-25 allows
	"CORE-INVALID-PARAMS":      packs.Failed, // zod rejects the params with -32603
	"CORE-CAPABILITIES-SERVED": packs.Passed,
	"CORE-RESOURCES":           packs.Failed, // unknown URI: -32602 (the 2026 code), not -32002
	"CORE-PROMPTS":             packs.Passed,
	"CORE-LOGGING-SET-LEVEL":   packs.Failed, // an invalid level gets -32603
	"CORE-TOOL-SWEEP":          packs.Passed,
	"CORE-PROGRESS":            packs.Passed, // trigger-long-running-operation reports progress
	"CORE-UNKNOWN-TOOL":        packs.Failed, // an isError result, not a protocol error
	"CORE-BAD-ARGUMENTS":       packs.Passed,
	"CORE-CANCELLATION":        packs.Passed,
	"CORE-CANCEL-UNKNOWN":      packs.Passed,
	"CORE-LARGE-ARGUMENT":      packs.Passed,
	"CORE-VERSION-NEGOTIATION": packs.Passed,
	"CORE-EXIT-ON-STDIN-CLOSE": packs.Passed,
	"CORE-NO-ORPHANS":          packs.Passed,
	"CORE-WRITES-OUTSIDE-ROOT": packs.Passed,
	"CORE-NO-LISTENER":         packs.Passed,
	"CORE-STDOUT-JSONRPC":      packs.Passed,
	"CORE-WIRE-MESSAGES":       packs.Passed,
	"CORE-SECRET-ECHO":         packs.Failed, // get-env returns the whole environment, by design
}

// TestEverything runs the core pack over stdio against the real
// server-everything and compares every verdict with everythingVerdicts.
func TestEverything(t *testing.T) {
	t.Parallel() // sandboxed, so safe beside the other observed runs (see TestTwins)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: the real server-everything cannot run")
	}
	js, err := filepath.Abs(everythingJS)
	require.NoError(t, err)
	if _, err := os.Stat(js); err != nil {
		t.Skipf("server-everything is not installed (%v): run npm ci in testdata/npm, as .ci/run does", err)
	}
	// dist/index.js takes the transport as its first argument.
	e, err := engine.New(engine.Config{
		Command: node, Args: []string{js, "stdio"},
		Packs: []string{"core"}, SandboxDir: t.TempDir(),
		StartTimeout: 20 * time.Second, CallTimeout: 5 * time.Second,
		StdinGrace: time.Second, TermGrace: time.Second,
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep := e.Run(ctx, engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	require.Len(t, rep.Packs, 1)
	seen := map[string]bool{}
	for _, p := range rep.Packs[0].Probes {
		seen[p.ID] = true
		want, pinned := everythingVerdicts[p.ID]
		switch {
		case !pinned:
			t.Errorf("%s: verdict %s is not pinned in everythingVerdicts", p.ID, p.Verdict)
		case p.Verdict != want:
			t.Errorf("%s: verdict %s, want %s; reason %q, findings %v, notes %v", p.ID, p.Verdict, want, p.Reason, p.Findings, p.Notes)
		}
		if testing.Verbose() {
			t.Logf("%s %s %s %v notes %q", p.ID, p.Verdict, p.Reason, findingsOf(p), p.Notes)
		}
	}
	for id := range everythingVerdicts {
		if !seen[id] {
			t.Errorf("%s: pinned but did not run", id)
		}
	}
}

func findingsOf(p report.Probe) []string {
	var out []string
	for _, f := range p.Findings {
		out = append(out, f.Severity.String()+": "+f.Message)
	}
	return out
}
