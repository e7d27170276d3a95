package core_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/slowtest"
	"github.com/sealmark/sealmark/packs"
)

// TestRawAnswersMatchedByID proves that the raw exchanges match answers
// by id: a server that answers concurrently, a line after the barrier
// that follows it (the concurrent fixture holds a request followed by
// another for 300 ms), fails no probe, while the same server with a wrong
// id, or ignoring invalid requests, still fails exactly that probe; and
// that the answer to the harness's own request with an object id is judged
// once, by invalid-request, not again by wire-messages. Before answers were
// matched by id, the concurrent fixture failed request-ids ("got no
// answer") and invalid-params, and object-id-echo failed wire-messages.
//
// Not parallel, for the reason TestTwins is not: its servers run bare,
// and a sandboxed run's process observer would stop them.
func TestRawAnswersMatchedByID(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the raw probes against a server that answers concurrently and late")
	}
	twins := []struct {
		flaws string
		want  map[string]string // probe id → a finding message must contain this
	}{
		{"concurrent", nil},
		{"concurrent,wrong-id-echo", map[string]string{"CORE-REQUEST-IDS": `a request with id 9007199254740991 was answered with id "9007199254740991"`}},
		{"concurrent,no-invalid-request-error", map[string]string{"CORE-INVALID-REQUEST": "7 of 7 invalid requests were not answered with error -32600"}},
		{"object-id-echo", map[string]string{"CORE-INVALID-REQUEST": "1 of 7 invalid requests were not answered with error -32600: an object id (a result)"}},
	}
	reps := make([]*report.Report, len(twins))
	errs := make([]error, len(twins))
	var wg sync.WaitGroup
	for i, tw := range twins {
		wg.Go(func() { reps[i], errs[i] = coreReport(t.TempDir(), tw.flaws, true) })
	}
	wg.Wait()
	for i, tw := range twins {
		t.Run(tw.flaws, func(t *testing.T) {
			require.NoError(t, errs[i])
			rep := reps[i]
			require.Empty(t, rep.HarnessError)
			require.Len(t, rep.Packs, 1)
			checkVerdicts(t, rep.Packs[0].Probes, tw.want)
		})
	}
}

// checkVerdicts fails on a probe that failed without being in want, and on
// one in want that did not fail with a finding containing its text.
func checkVerdicts(t *testing.T, probes []report.Probe, want map[string]string) {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range probes {
		seen[p.ID] = true
		text, expected := want[p.ID]
		switch {
		case expected && p.Verdict != packs.Failed:
			t.Errorf("%s: verdict %s (%s), want fail with %q", p.ID, p.Verdict, p.Reason, text)
		case expected && !anyFinding(p, text):
			t.Errorf("%s: findings %v, want one containing %q", p.ID, p.Findings, text)
		case !expected && p.Verdict == packs.Failed:
			t.Errorf("%s: unexpected fail: %v", p.ID, p.Findings)
		case !expected && p.Verdict == packs.Errored:
			t.Errorf("%s: harness error: %s", p.ID, p.Reason)
		}
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("%s: probe did not run", id)
		}
	}
}

// rawProbes are the probes that write raw lines and judge their answers,
// and wire-messages, which judges every message.
var rawProbes = []string{"malformed-input", "request-ids", "parse-error", "invalid-request", "batch", "invalid-params", "wire-messages"}

// TestRawAnswersMcpGo runs the raw probes on a real mcp-go v1.2.1 stdio
// server, which serves each request in a goroutine of its own, twice: as
// it is, and with a hook that holds a request followed by another at once
// for 300 ms (what a loaded machine does to it now and then, made
// certain). The verdicts and findings must be the same, and request-ids
// must pass: an answer that comes after the barrier's is still its
// request's. Before answers were matched by id, the held run failed
// request-ids with "got no answer" for each id (and wire-messages graded
// mcp-go's answer to the object id a second time).
//
// Checked by hand on the test binary (go test -c -o core.test):
//
//	printf '%s\n' '{"jsonrpc":"2.0","id":"a","method":"ping"}' '{"jsonrpc":"2.0","id":"b","method":"ping"}' \
//	  '{"jsonrpc":"2.0","id":{"sm":"inv-3"},"method":"ping"}' | ./core.test __sealmark-mcpgo -hold
//
// answers the object id first, with {"jsonrpc":"2.0","id":{"sm":"inv-3"},"result":{}}
// (mcp-go v1.2.1 serves it and echoes the object, with or without -hold),
// then b, then a, 300 ms after a was read.
//
// Not parallel: its servers run bare, as TestRawAnswersMatchedByID's.
func TestRawAnswersMcpGo(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	run := func(args ...string) *report.Report {
		e, err := engine.New(engine.Config{Catalog: catalogue.All,
			Command: self, Args: append([]string{mcpgoVerb}, args...),
			Packs: []string{"core"}, OnlyProbes: rawProbes, NoSandbox: true,
			StartTimeout: slowtest.Scale(10 * time.Second), CallTimeout: 3 * time.Second,
			StdinGrace: 500 * time.Millisecond, TermGrace: 500 * time.Millisecond,
		})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), runBound)
		defer cancel()
		rep := e.Run(ctx, engine.Hooks{})
		require.Empty(t, rep.HarnessError)
		require.Len(t, rep.Packs, 1)
		return rep
	}
	var plain, held *report.Report
	var wg sync.WaitGroup
	wg.Go(func() { plain = run() })
	wg.Go(func() { held = run("-hold") })
	wg.Wait()
	if t.Failed() {
		return
	}
	summary := func(rep *report.Report) map[string]string {
		out := map[string]string{}
		for _, p := range rep.Packs[0].Probes {
			var msgs []string
			for _, f := range p.Findings {
				msgs = append(msgs, f.Message)
			}
			out[p.ID] = string(p.Verdict) + ": " + strings.Join(msgs, " | ")
		}
		return out
	}
	got, want := summary(held), summary(plain)
	require.Equal(t, want, got, "the raw probes' verdicts on mcp-go with answers held, want those without")
	require.Len(t, got, len(rawProbes))
	require.True(t, strings.HasPrefix(got["CORE-REQUEST-IDS"], string(packs.Passed)), "request-ids on mcp-go: %s", got["CORE-REQUEST-IDS"])
	// mcp-go serves a ping with an object id and echoes the object as the
	// result's id: invalid-request judges that (low), and wire-messages
	// leaves it to it, where it used to grade the same answer medium.
	require.Contains(t, got["CORE-INVALID-REQUEST"], "an object id (a result)")
	require.True(t, strings.HasPrefix(got["CORE-WIRE-MESSAGES"], string(packs.Passed)), "wire-messages on mcp-go: %s", got["CORE-WIRE-MESSAGES"])
}

// TestRawAnswersLateInASandbox is the concurrent twin of
// TestRawAnswersMatchedByID in a sandbox, where the process observer
// ends the grace past a barrier as soon as the server is idle: the answer
// the fixture holds for 300 ms is a timer due within the grace, so the
// tree is not idle before it was written, and no probe fails. With a
// barrier that ended the grace on an idle-looking tree alone, request-ids
// and invalid-params failed ("got no answer").
func TestRawAnswersLateInASandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the raw probes against a late answer in a sandbox")
	}
	rep, err := coreReport(t.TempDir(), "concurrent", false)
	require.NoError(t, err)
	require.Empty(t, rep.HarnessError)
	require.Len(t, rep.Packs, 1)
	checkVerdicts(t, rep.Packs[0].Probes, nil)
}
