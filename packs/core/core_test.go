package core_test

import (
	"cmp"
	"context"
	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/slowtest"
	"os"
	"slices"
	"strings"
	"sync"
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
	report.SetWriteCheck(report.ValidateJSON) // every report a test writes matches the published schema
	contain.Dispatch()
	fixture.Dispatch()
	mcpgoDispatch()
	httpfixture.Dispatch()
	smbin.Dispatch()
	core.ExitGrace = time.Second
	core.CancelDuration = 600 * time.Millisecond
	os.Exit(m.Run())
}

func TestPackDefinition(t *testing.T) {
	for _, err := range core.Pack.Check() {
		t.Error(err)
	}
}

// runBound bounds one run of a twin.
const runBound = 4 * time.Minute

// runCore runs the core pack against the fixture server with the given flaws.
func runCore(t *testing.T, flaws string) *report.Report {
	t.Helper()
	rep, err := coreReport(t.TempDir(), flaws, false)
	require.NoError(t, err)
	return rep
}

// coreReport runs the core pack against the fixture server with the given
// flaws, with its sandbox in dir; bare runs it with no sandbox, so without
// the observers (and their cost). It is safe to call from any goroutine.
func coreReport(dir, flaws string, bare bool) (*report.Report, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	e, err := engine.New(engine.Config{Catalog: catalogue.All,
		Command: self, Args: []string{fixture.Verb, "-flaws=" + flaws},
		Packs: []string{"core"}, SandboxDir: dir, NoSandbox: bare,
		StartTimeout: slowtest.Scale(10 * time.Second), CallTimeout: 2 * time.Second,
		StdinGrace: 500 * time.Millisecond, TermGrace: 500 * time.Millisecond,
	})
	if err != nil {
		return nil, err
	}
	// A bound for a hung run, not a speed test: on a loaded machine an
	// observed run (two starts, every probe, the observers) takes minutes.
	ctx, cancel := context.WithTimeout(context.Background(), runBound)
	defer cancel()
	return e.Run(ctx, engine.Hooks{}), nil
}

// cleanVerdicts pins, for the good and the full fixture, the verdicts of
// the probes whose feature only the full one offers.
var cleanVerdicts = map[string]map[string]packs.Verdict{
	"": {
		"CORE-RESOURCES": packs.NotApplicable, "CORE-PROMPTS": packs.NotApplicable,
		"CORE-LOGGING-SET-LEVEL": packs.NotApplicable, "CORE-PROGRESS": packs.NotApplicable,
		"CORE-CANCELLATION": packs.Passed, "CORE-BAD-ARGUMENTS": packs.Passed, "CORE-LARGE-ARGUMENT": packs.Passed,
		"CORE-NO-ORPHANS": packs.Passed, "CORE-SECRET-ECHO": packs.Passed,
		"CORE-INITIALIZE": packs.Passed, "CORE-PING": packs.Passed, "CORE-VERSION-NEGOTIATION": packs.Passed,
		"CORE-DISCOVER": packs.NotApplicable, "CORE-MODERN-META": packs.NotApplicable,
		"CORE-MODERN-UNSUPPORTED-VERSION": packs.NotApplicable, "CORE-MODERN-REMOVED-METHODS": packs.NotApplicable,
		"CORE-MODERN-NO-UNREQUESTED-LOG": packs.NotApplicable, "CORE-MODERN-NO-STDOUT-REQUESTS": packs.NotApplicable,
		"CORE-MODERN-LEGACY-INITIALIZE": packs.NotApplicable, "CORE-MODERN-RESULT-SHAPE": packs.NotApplicable,
		"CORE-MODERN-ERROR-CODES": packs.NotApplicable, "CORE-MODERN-HTTP-HEADERS": packs.NotApplicable,
		"CORE-MODERN-HTTP-NO-SESSIONS": packs.NotApplicable,
	},
	"full": {
		"CORE-RESOURCES": packs.Passed, "CORE-PROMPTS": packs.Passed,
		"CORE-LOGGING-SET-LEVEL": packs.Passed, "CORE-PROGRESS": packs.Passed,
	},
	// The modern fixture: the modern rules pass, the legacy-only ones
	// are not applicable.
	"modern": {
		"CORE-DISCOVER": packs.Passed, "CORE-MODERN-META": packs.Passed,
		"CORE-MODERN-UNSUPPORTED-VERSION": packs.Passed, "CORE-MODERN-REMOVED-METHODS": packs.Passed,
		"CORE-MODERN-NO-UNREQUESTED-LOG": packs.Passed, "CORE-MODERN-NO-STDOUT-REQUESTS": packs.Passed,
		"CORE-INITIALIZE": packs.NotApplicable, "CORE-PING": packs.NotApplicable,
		"CORE-VERSION-NEGOTIATION": packs.NotApplicable, "CORE-LOGGING-SET-LEVEL": packs.NotApplicable,
		"CORE-CANCELLATION": packs.Passed, "CORE-BAD-ARGUMENTS": packs.Passed, "CORE-LARGE-ARGUMENT": packs.Passed,
		"CORE-REQUEST-IDS": packs.Passed, "CORE-TOOL-SWEEP": packs.Passed,
		"CORE-MODERN-LEGACY-INITIALIZE": packs.Passed, "CORE-MODERN-RESULT-SHAPE": packs.Passed,
		"CORE-MODERN-ERROR-CODES": packs.Passed,
		// the HTTP transport's own modern rules: see TestModernHTTP
		"CORE-MODERN-HTTP-HEADERS": packs.NotApplicable, "CORE-MODERN-HTTP-NO-SESSIONS": packs.NotApplicable,
	},
	"slow-large-argument": {"CORE-LARGE-ARGUMENT": packs.Passed},
	"modern,full": {
		"CORE-DISCOVER": packs.Passed, "CORE-RESOURCES": packs.Passed, "CORE-PROMPTS": packs.Passed,
		"CORE-LOGGING-SET-LEVEL": packs.NotApplicable, "CORE-PROGRESS": packs.Passed,
		"CORE-MODERN-RESULT-SHAPE": packs.Passed, "CORE-MODERN-ERROR-CODES": packs.Passed,
	},
}

// slowTwins rank the twins that wait out timeouts, so they start first.
var slowTwins = map[string]int{"no-unknown-method-answer": 3, "hang-on-call": 2, "slow-large-argument": 1, "drop-large-argument": 1, "ignore-stdin-close": 1}

// How many twins run at the same time. Bare runs mostly wait on the
// fixture (cancellation windows, timeouts), so more run at once than there
// are CPUs (go test's own -parallel would cap them at GOMAXPROCS); observed
// runs spend CPU on the observers.
const (
	bareAtOnce     = 12
	observedAtOnce = 6
)

// TestTwins proves every core probe both ways: the good fixture fails no
// probe, and each twin fails exactly the probes it was built to fail, with
// the finding it was built to produce. A missing finding fails as loudly as
// an unexpected one.
func TestTwins(t *testing.T) {
	twins := []struct {
		flaws string
		want  map[string]string // probe id → a finding message must contain this
		// observed runs the twin in the sandbox with the observers. The
		// others run bare (no sandbox, so their observer probes are not
		// applicable): what they break is on the wire, and the observers
		// cost most of a run's CPU.
		observed bool
	}{
		{"", nil, true},
		{"echo-canary", map[string]string{"CORE-SECRET-ECHO": "SEALMARK_CANARY echoed in the response to tools/call debug_info"}, false},
		{"canary-in-description", map[string]string{"CORE-SECRET-ECHO": "SEALMARK_FAKE_API_KEY echoed in the response to tools/list"}, false},
		{"canary-in-log", map[string]string{"CORE-SECRET-ECHO": "SEALMARK_FAKE_API_KEY echoed in the server log"}, false},
		{"stdout-banner", map[string]string{"CORE-STDOUT-JSONRPC": "stdout line 1 is a line that is not JSON"}, false},
		{"ignore-stdin-close", map[string]string{"CORE-EXIT-ON-STDIN-CLOSE": "still running 1s after its stdin closed"}, false},
		{"wrong-unknown-method-code", map[string]string{"CORE-UNKNOWN-METHOD": "answered with error -32603"}, false},
		{"no-unknown-method-answer", map[string]string{"CORE-UNKNOWN-METHOD": "no answer to an unknown method"}, false},
		{"die-on-garbage", map[string]string{"CORE-MALFORMED-INPUT": "the server exited after malformed input"}, false},
		{"bad-schema", map[string]string{"CORE-TOOLS-LIST": `tool "add_note": inputSchema is missing or null`}, false},
		{"bad-tool-name", map[string]string{"CORE-TOOLS-LIST": `tool name "list_notes" appears more than once`}, false},
		{"pagination-loop", map[string]string{"CORE-TOOLS-LIST": "came back twice"}, false},
		{"bad-init", map[string]string{"CORE-INITIALIZE": `negotiated protocolVersion "1999-01-01"`}, false},
		{"undeclared-tools", map[string]string{"CORE-INITIALIZE": "did not declare the tools capability"}, false},
		{"crash-on-call", map[string]string{"CORE-TOOL-SWEEP": "with valid arguments ended the server"}, false},
		{"hang-on-call", map[string]string{"CORE-TOOL-SWEEP": "did not answer within"}, false},
		{"write-outside", map[string]string{"CORE-WRITES-OUTSIDE-ROOT": "changed a file outside its root: created root-evil/written-by-server.txt"}, true},
		{"daemon", map[string]string{"CORE-NO-ORPHANS": "sm-sleep 600"}, true},
		{"fork-daemon", map[string]string{"CORE-NO-ORPHANS": "-sleeper"}, true},
		// A child that sees the server go and ends on its own a second
		// later (chrome-devtools-mcp's telemetry watchdog) is no orphan.
		{"last-flush", nil, true},
		{"listen", map[string]string{"CORE-NO-LISTENER": "said nothing to an HTTP request"}, true},
		{"listen-all", map[string]string{"CORE-NO-LISTENER": "all interfaces"}, true},
		// Spoken to over loopback in the server's namespace: an open door.
		{"listen-http", map[string]string{"CORE-NO-LISTENER": "(all interfaces); serves HTTP without authentication (GET / → 200)"}, true},
		{"full", nil, false},
		{"echo-unknown-version", map[string]string{"CORE-VERSION-NEGOTIATION": "was answered with 1999-01-01"}, false},
		{"no-ping", map[string]string{"CORE-PING": "ping was answered with error -32601"}, false},
		{"wrong-id-echo", map[string]string{"CORE-REQUEST-IDS": `a request with id 9007199254740991 was answered with id "9007199254740991"`}, false},
		{"no-parse-error", map[string]string{"CORE-PARSE-ERROR": "got no answer; JSON-RPC asks for error -32700"}, false},
		{"no-invalid-request-error", map[string]string{"CORE-INVALID-REQUEST": "7 of 7 invalid requests were not answered with error -32600"}, false},
		{"batch-unrolled", map[string]string{"CORE-BATCH": "answered one by one (2 lines)"}, false},
		{"bad-params-code", map[string]string{"CORE-INVALID-PARAMS": "tools/list with params [] was answered with error -32603"}, false},
		{"bogus-cursor-ignored", map[string]string{"CORE-BOGUS-CURSOR": "was answered with a page"}, false},
		{"unknown-tool-iserror", map[string]string{"CORE-UNKNOWN-TOOL": "answered with an isError result"}, false},
		{"bad-arguments-code", map[string]string{"CORE-BAD-ARGUMENTS": "tools/call read_note with no arguments was answered with error -32603"}, false},
		// bad-arguments tries every tool, not only the first.
		{"second-tool-bad-arguments", map[string]string{"CORE-BAD-ARGUMENTS": "tools/call find_note with query of the wrong type (string expected) was answered with error -32603"}, false},
		// Each required argument is left out in turn, the others given.
		{"omitted-argument-code", map[string]string{"CORE-BAD-ARGUMENTS": "tools/call count_notes with only its required case_sensitive left out was answered with error -32603"}, false},
		{"asks-client", map[string]string{"CORE-CLIENT-CAPABILITIES": "the server sent sampling/createMessage (once) although the client declared no sampling capability"}, false},
		{"asks-client-flood", map[string]string{"CORE-CLIENT-CAPABILITIES": "the server sent elicitation/create (50 times) although the client declared no elicitation capability"}, false},
		{"crash-on-large-argument", map[string]string{"CORE-LARGE-ARGUMENT": "the server exited on tools/call read_note with a 1 MiB name"}, false},
		// Slow to take a megabyte is not stopped: it answers late and passes.
		{"slow-large-argument", nil, false},
		{"drop-large-argument", map[string]string{"CORE-LARGE-ARGUMENT": "tools/call read_note with a 1 MiB name got no answer within 4s, yet a tools/list sent after it was answered"}, false},
		{"late-cancel-response", map[string]string{"CORE-CANCELLATION": "tools/call slow_op was answered after it was cancelled"}, false},
		{"crash-on-unknown-cancel", map[string]string{"CORE-CANCEL-UNKNOWN": "exited after a cancellation of a request that was never sent"}, false},
		{"progress-after-response", map[string]string{"CORE-PROGRESS": "a progress notification for tools/call slow_op came after its response"}, false},
		{"resources-undeclared", map[string]string{"CORE-CAPABILITIES-SERVED": "answers resources/list but did not declare the resources capability"}, false},
		{"logging-declared-unserved", map[string]string{"CORE-CAPABILITIES-SERVED": "declared the logging capability but answers logging/setLevel with -32601"}, false},
		{"unknown-resource-empty", map[string]string{"CORE-RESOURCES": "resources/read of an unknown URI was answered with a result"}, false},
		{"bad-prompt-code", map[string]string{"CORE-PROMPTS": "prompts/get of an unknown prompt was answered with error -32603"}, false},
		{"bad-setlevel-code", map[string]string{"CORE-LOGGING-SET-LEVEL": "invalid level was answered with error -32603"}, false},
		{"malformed-frame", map[string]string{"CORE-WIRE-MESSAGES": "params is not an object"}, false},
		{"poisoned-description", map[string]string{"CORE-TOOL-METADATA": `tool "add_note" description has a tag addressed to the model: `}, false},
		{"invisible-unicode", map[string]string{"CORE-TOOL-METADATA": `tool "list_notes" description hides 7 invisible characters (tag characters spelling "Ignore")`}, false},
		{"shadowing-description", map[string]string{"CORE-TOOL-METADATA": `steers the model away from tool "read_note": "`}, false},
		{"overlong-description", map[string]string{"CORE-TOOL-METADATA": "characters long (over 16384)"}, false},
		{"modern", nil, false},
		{"modern,full", nil, false},
		{"modern-bad-discover", map[string]string{"CORE-DISCOVER": "the DiscoverResult has no supportedVersions"}, false},
		{"modern-no-meta-check", map[string]string{"CORE-MODERN-META": "tools/list without _meta was answered with a result, want error -32602"}, false},
		{"modern-bad-version-code", map[string]string{"CORE-MODERN-UNSUPPORTED-VERSION": "tools/list at protocol 1900-01-01 was answered with error -32602, want error -32022"}, false},
		{"modern-serves-ping", map[string]string{"CORE-MODERN-REMOVED-METHODS": "ping, removed in 2026-07-28, was answered with a result, want error -32601"}, false},
		{"modern-log-without-level", map[string]string{"CORE-MODERN-NO-UNREQUESTED-LOG": "sent notifications/message although no request asked for a log level"}, false},
		{"modern-stdout-request", map[string]string{"CORE-MODERN-NO-STDOUT-REQUESTS": "is a request (roots/list) from the server"}, false},
		{"modern-no-result-type", map[string]string{"CORE-MODERN-RESULT-SHAPE": "a tools/call result has no resultType"}, false},
		{"modern-no-cache-hints", map[string]string{"CORE-MODERN-RESULT-SHAPE": "a tools/list result has no cacheScope"}, false},
		{"modern-cache-scope-per-page", map[string]string{"CORE-MODERN-RESULT-SHAPE": `tools/list results carry cacheScope "public" and "private"; it must be the same on every page`}, false},
		{"modern-undefined-error-code", map[string]string{"CORE-MODERN-ERROR-CODES": "error -32050, a code the spec does not define in its reserved range"}, false},
		{"modern-legacy-error-code", map[string]string{"CORE-MODERN-ERROR-CODES": "error -32002, which the modern era forbids"}, false},
		{"modern-initialize-no-versions", map[string]string{"CORE-MODERN-LEGACY-INITIALIZE": "names none of the supported versions (2026-07-28)"}, false},
	}
	if testing.Short() {
		// The good server (observed) and two bare twins, each with its
		// finding; the others skip as subtests saying so.
		var kept []int
		for i, tw := range twins {
			if slices.Contains([]string{"", "echo-canary", "stdout-banner"}, tw.flaws) {
				kept = append(kept, i)
				continue
			}
			t.Run(tw.flaws, func(t *testing.T) { t.Skip("-short: every core probe's twins against the fixture server") })
		}
		for n, i := range kept {
			twins[n] = twins[i]
		}
		twins = twins[:len(kept)]
	}
	type run struct {
		rep *report.Report
		err error
	}
	// Observed twins run first, bare ones after: the process observer of
	// a sandboxed run adopts (and at its end stops) any child of this test
	// process in a group of its own that no observer tracks, which is what
	// a bare run's server is. For the same reason TestTwins is not
	// parallel: the parallel tests of this package, which start once it is
	// done, all run sandboxed.
	runs := make([]chan run, len(twins))
	dirs := make([]string, len(twins))
	for i := range twins {
		runs[i] = make(chan run, 1)
		dirs[i] = t.TempDir()
	}
	for _, observed := range []bool{true, false} {
		// The slowest twins (they wait out timeouts) go first.
		var queue []int
		for i, tw := range twins {
			if tw.observed == observed {
				queue = append(queue, i)
			}
		}
		slices.SortStableFunc(queue, func(a, b int) int {
			return cmp.Compare(slowTwins[twins[b].flaws], slowTwins[twins[a].flaws])
		})
		jobs := make(chan int, len(queue))
		for _, i := range queue {
			jobs <- i
		}
		close(jobs)
		var phase sync.WaitGroup
		for range map[bool]int{true: observedAtOnce, false: bareAtOnce}[observed] {
			phase.Go(func() {
				for i := range jobs {
					rep, err := coreReport(dirs[i], twins[i].flaws, !twins[i].observed)
					runs[i] <- run{rep, err}
				}
			})
		}
		phase.Wait()
	}
	for i, tw := range twins {
		name := tw.flaws
		if name == "" {
			name = "good"
		}
		r := <-runs[i]
		t.Run(name, func(t *testing.T) {
			require.NoError(t, r.err)
			rep := r.rep
			require.Empty(t, rep.HarnessError)
			require.Len(t, rep.Packs, 1)
			// Era detection: the modern fixture is found modern, every
			// other one legacy, and the report says which.
			wantEra, wantVersion := "legacy", "2025-11-25"
			if strings.Contains(tw.flaws, "modern") {
				wantEra, wantVersion = "modern", "2026-07-28"
			}
			if tw.flaws != "bad-init" && (rep.Protocol.Era != wantEra || rep.Protocol.Version != wantVersion || rep.Protocol.Transport != "stdio") {
				t.Errorf("protocol %+v, want era %s, version %s over stdio", rep.Protocol, wantEra, wantVersion)
			}
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
			// The good and the full server: every probe passes or is not
			// applicable, and the optional features are proven both ways.
			if want, clean := cleanVerdicts[tw.flaws]; clean {
				for _, p := range rep.Packs[0].Probes {
					if p.Verdict != packs.Passed && p.Verdict != packs.NotApplicable {
						t.Errorf("%s: verdict %s (%s), want pass or not-applicable", p.ID, p.Verdict, p.Reason)
					}
					if v, pinned := want[p.ID]; pinned && p.Verdict != v {
						t.Errorf("%s: verdict %s (%s), want %s", p.ID, p.Verdict, p.Reason, v)
					}
				}
			}
		})
	}
}

func anyFinding(p report.Probe, want string) bool {
	for _, f := range p.Findings {
		if strings.Contains(f.String(), want) { // the message or an evidence line
			return true
		}
	}
	return false
}

// TestSecretEchoEvidenceNamesNoText checks that the evidence of a canary
// echo names the variable and the place and the report masks the value.
func TestSecretEchoEvidenceNamesNoText(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a sandboxed echo-canary run (TestTwins's echo-canary twin proves the finding)")
	}
	t.Parallel() // sandboxed, so safe beside the other observed runs (see TestTwins)
	rep := runCore(t, "echo-canary")
	var buf strings.Builder
	require.NoError(t, report.WriteJSON(&buf, rep))
	out := buf.String()
	require.Contains(t, out, "SEALMARK_CANARY echoed")
	require.NotContains(t, out, "sm-canary-", "a canary value reached the report")
	require.NotContains(t, out, "sk-sealmark-fake-", "a canary value reached the report")
}
