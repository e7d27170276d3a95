package table_test

import (
	"context"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/slowtest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/table"
)

func TestMain(m *testing.M) {
	contain.Dispatch()
	fixture.Dispatch()
	smbin.Dispatch()
	os.Exit(m.Run())
}

// runPack runs one pack against the fixture server started with args, on
// a fresh sandbox, and returns the finalized report.
func runPack(t *testing.T, pk packs.Pack, mutate func(*engine.Config), args ...string) *report.Report {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	cfg := engine.Config{
		Command: self, Args: append([]string{fixture.Verb}, args...),
		Catalog: []packs.Pack{pk}, SandboxDir: t.TempDir(),
		StartTimeout: slowtest.Scale(10 * time.Second), CallTimeout: 5 * time.Second,
		StdinGrace: 500 * time.Millisecond, TermGrace: 500 * time.Millisecond,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep := e.Run(ctx, engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	require.Len(t, rep.Packs, 1)
	return rep
}

// twinRows is one table run against the good fixture and against each
// flawed twin. Every row passes on a well-behaved server except the two
// that name what only a flaw provides (debug_info, the file write-outside
// leaves).
func twinRows() []table.Row {
	return []table.Row{{
		Name: "no-side-effects",
		Tool: "add_note",
		Args: map[string]any{"title": "{token}"},
		Expect: []table.Expect{table.NoFileChangesOutsideRoot(), table.FileChanges(), table.NoConnection(),
			table.NoProgramRan(), table.NotRan("sm-canary"), table.NoProcessOutlived()},
	}, {
		Name: "reads-note",
		Tool: "read_note",
		Args: map[string]any{"name": "groceries"},
		Expect: []table.Expect{table.Succeeds(), table.Contains("remember the milk"), table.NotContains("secret"),
			table.Matches(`^note \w+: remember`), table.NotMatches(`(?i)error`), table.NoCanary(), table.Within(4 * time.Second)},
	}, {
		Name:   "refuses-nameless",
		Tool:   "read_note",
		Expect: []table.Expect{table.Refused(), table.Contains("missing required argument")},
	}, {
		Name:   "leaks-nothing",
		Tool:   "debug_info",
		Expect: []table.Expect{table.NoCanary()},
	}, {
		Name:   "writes-evil",
		Tool:   "list_notes",
		Args:   map[string]any{"tag": "{token}"},
		Expect: []table.Expect{table.FileChanges("{root_evil}/written-by-server.txt")},
	}}
}

// TestTwins proves every expectation both ways: each twin breaks exactly
// the expectations it was built to break, with the documented message, and
// the same rows pass where the server behaves. A missing finding fails as
// loudly as an unexpected one.
func TestTwins(t *testing.T) {
	pk, err := table.Pack("mine", twinRows())
	require.NoError(t, err)
	notOffered := "row leaks-nothing: tool debug_info is not offered by the server"
	noWrite := "row writes-evil: {root_evil}/written-by-server.txt did not change"
	twins := []struct {
		name string
		args []string
		want map[string][]string // row → every finding message, by substring, in order
	}{
		{"good", nil, map[string][]string{"leaks-nothing": {notOffered}, "writes-evil": {noWrite}}},
		{"write-outside", []string{"-flaws=write-outside"}, map[string][]string{
			"no-side-effects": {
				"row no-side-effects: a file changed outside root/: created root-evil/written-by-server.txt (",
				"row no-side-effects: an unexpected file change: created root-evil/written-by-server.txt (",
			},
			"leaks-nothing": {notOffered},
		}},
		{"callback", []string{"-flaws=callback", "-callback={listener}"}, map[string][]string{
			"no-side-effects": {"row no-side-effects: a connection reached the loopback listener: GET /cb/{token}"},
			"leaks-nothing":   {notOffered}, "writes-evil": {noWrite},
		}},
		{"follow-redirect", []string{"-flaws=follow-redirect", "-upstream={upstream}"}, map[string][]string{
			"no-side-effects": {
				"row no-side-effects: a connection reached the loopback listener: GET /redirected",
				"row no-side-effects: a request reached the upstream stub: GET /redirect",
			},
			"leaks-nothing": {notOffered}, "writes-evil": {noWrite},
		}},
		{"exec-canary", []string{"-flaws=exec-canary"}, map[string][]string{
			"no-side-effects": {
				"row no-side-effects: a program ran: sm-canary {token}",
				"row no-side-effects: sm-canary ran: sm-canary {token}",
			},
			"leaks-nothing": {notOffered}, "writes-evil": {noWrite},
		}},
		{"daemon", []string{"-flaws=daemon"}, map[string][]string{
			"no-side-effects": {
				"row no-side-effects: a program ran: ",
				"row no-side-effects: a process outlived the call: sm-sleep 600",
			},
			"leaks-nothing": {notOffered}, "writes-evil": {noWrite},
		}},
		{"echo-canary", []string{"-flaws=echo-canary"}, map[string][]string{
			"leaks-nothing": {
				"row leaks-nothing: the response of debug_info holds the value of SEALMARK_CANARY",
				"row leaks-nothing: the response of debug_info holds the value of SEALMARK_FAKE_API_KEY",
			},
			"writes-evil": {noWrite},
		}},
		{"hang-on-call", []string{"-flaws=hang-on-call"}, map[string][]string{
			"reads-note":       {"row reads-note: read_note did not answer within 4s"},
			"refuses-nameless": {"row refuses-nameless: read_note gave no answer (", "want: refused, contains \"missing required argument\""},
			"leaks-nothing":    {notOffered},
			"writes-evil":      {"row writes-evil: {root_evil}/written-by-server.txt did not change"},
		}},
	}
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			if tw.name == "daemon" || tw.name == "exec-canary" {
				requireProcessObserver(t)
			}
			rep := runPack(t, pk, func(c *engine.Config) {
				if tw.name == "hang-on-call" {
					c.CallTimeout = time.Second // every call of this twin waits it out
				}
			}, tw.args...)
			probes := rep.Packs[0].Probes
			require.Len(t, probes, len(twinRows()), "every row runs")
			for _, p := range probes {
				want := tw.want[p.Name]
				if len(want) == 0 {
					assert.Equal(t, packs.Passed, p.Verdict, "%s: %s %v", p.Name, p.Reason, p.Findings)
					continue
				}
				assert.Equal(t, packs.Failed, p.Verdict, "%s: %s", p.Name, p.Reason)
				assertFindings(t, p, want)
			}
		})
	}
}

// assertFindings checks that every wanted text is in some finding of p and
// every finding of p is wanted.
func assertFindings(t *testing.T, p report.Probe, want []string) {
	t.Helper()
	for _, w := range want {
		found := false
		for _, f := range p.Findings {
			found = found || strings.Contains(f.Message, w)
		}
		assert.True(t, found, "%s: no finding contains %q; findings: %v", p.Name, w, messages(p))
	}
	for _, f := range p.Findings {
		wanted := false
		for _, w := range want {
			wanted = wanted || strings.Contains(f.Message, w)
		}
		assert.True(t, wanted, "%s: unexpected finding %q", p.Name, f.Message)
	}
}

func messages(p report.Probe) []string {
	var out []string
	for _, f := range p.Findings {
		out = append(out, f.Message)
	}
	return out
}

// requireProcessObserver skips where the engine has no process observer:
// the rows would fail with "cannot be checked" instead (TestNoSandbox).
func requireProcessObserver(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc: the process observer needs Linux")
	}
}

// TestResponseExpectationsFail proves the response expectations the other
// way on the good server: each row breaks its expectation with the message
// the docs show, and the evidence names the response.
func TestResponseExpectationsFail(t *testing.T) {
	var checked *packs.Response
	rows := []table.Row{{
		Name: "refused-but-answered", Tool: "read_note", Args: map[string]any{"name": "groceries"},
		Expect: []table.Expect{table.Refused()},
	}, {
		Name: "succeeds-but-refused", Tool: "read_note",
		Expect: []table.Expect{table.Succeeds()},
	}, {
		Name: "text-mismatch", Tool: "read_note", Args: map[string]any{"name": "groceries"},
		Expect: []table.Expect{table.Contains("bread"), table.NotContains("milk"), table.Matches(`^error`), table.NotMatches(`mil+k$`)},
	}, {
		Name: "too-slow", Tool: "slow_op", Args: map[string]any{"seconds": 1},
		Expect: []table.Expect{table.Within(200 * time.Millisecond)},
	}, {
		Name: "unknown-tool", Tool: "read_file", Args: map[string]any{"path": "{canary_file}"},
		Expect: []table.Expect{table.Refused()},
	}, {
		Name: "own-check", Tool: "read_note", Args: map[string]any{"name": "{token}"},
		Check: func(p *packs.Pass, res *packs.Response, err error) {
			checked = res
			if err == nil && strings.Contains(string(res.Result), p.Token) {
				p.Reportf("row own-check: the note name came back: %s", res.Brief())
			}
		},
	}}
	pk, err := table.Pack("mine", rows)
	require.NoError(t, err)
	rep := runPack(t, pk, nil)
	want := map[string][]string{
		"refused-but-answered": {"row refused-but-answered: read_note answered a result, want a refusal (protocol error or isError)"},
		"succeeds-but-refused": {"row succeeds-but-refused: read_note was refused (isError: missing required argument: name), want a result without isError"},
		"text-mismatch": {
			`row text-mismatch: the response of read_note does not contain "bread"`,
			`row text-mismatch: the response of read_note contains "milk"`,
			`row text-mismatch: the response of read_note does not match /^error/`,
			`row text-mismatch: the response of read_note matches /mil+k$/: "milk"`,
		},
		"too-slow":     {"row too-slow: slow_op did not answer within 200ms"},
		"unknown-tool": {"row unknown-tool: tool read_file is not offered by the server"},
		"own-check":    {"row own-check: the note name came back: a result"},
	}
	for _, p := range rep.Packs[0].Probes {
		assert.Equal(t, packs.Failed, p.Verdict, p.Name)
		assertFindings(t, p, want[p.Name])
		for _, f := range p.Findings {
			if p.Name != "own-check" { // the row's own Check reported without evidence
				require.NotEmpty(t, f.Evidence, "%s: %s has no evidence", p.Name, f.Message)
			}
		}
	}
	require.NotNil(t, checked, "Check got the response")
	unknown := rep.Packs[0].Probes[4]
	assert.Equal(t, "tools/list", unknown.Findings[0].Evidence[0].Observer)
	assert.Contains(t, unknown.Findings[0].Evidence[0].Detail, "read_note, list_notes, add_note, slow_op")
	assert.Equal(t, "response", rep.Packs[0].Probes[0].Findings[0].Evidence[0].Observer)
}

// TestNoSandbox proves that an expectation a run cannot check fails with a
// message naming the row and the expectation, never passes.
func TestNoSandbox(t *testing.T) {
	rows := []table.Row{{
		Name: "needs-observers", Tool: "add_note", Args: map[string]any{"title": "x"},
		Expect: []table.Expect{table.Succeeds(), table.NoFileChangesOutsideRoot(), table.NoConnection(), table.NotRan("sm-canary"), table.NoProcessOutlived()},
	}, {
		Name: "needs-fixture", Tool: "read_note", Args: map[string]any{"name": "{canary_file}"},
		Expect: []table.Expect{table.Refused()},
	}, {
		Name: "needs-listener-text", Tool: "read_note", Args: map[string]any{"name": "x"},
		Expect: []table.Expect{table.NotContains("{listener}"), table.Succeeds()},
	}}
	pk, err := table.Pack("mine", rows)
	require.NoError(t, err)
	rep := runPack(t, pk, func(c *engine.Config) { c.NoSandbox = true })
	want := map[string][]string{
		"needs-observers": {
			`row needs-observers: no file change outside root/: cannot be checked on this run: no files observer: the run has no sandbox`,
			`row needs-observers: no connection: cannot be checked on this run: no loopback listener or upstream stub: the run has no sandbox`,
			`row needs-observers: sm-canary did not run: cannot be checked on this run: no process observer: the run has no sandbox`,
			`row needs-observers: no process outlived the call: cannot be checked on this run: no process observer: the run has no sandbox`,
		},
		"needs-fixture":       {"row needs-fixture: cannot call read_note: args: {canary_file} has no value on this run: the sandbox's fixtures exist only with a sandbox"},
		"needs-listener-text": {`row needs-listener-text: does not contain "{listener}": cannot be checked on this run: {listener} has no value on this run`},
	}
	for _, p := range rep.Packs[0].Probes {
		assert.Equal(t, packs.Failed, p.Verdict, p.Name)
		assertFindings(t, p, want[p.Name])
	}
}
