package sealmarktest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/fixture/httpfixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/reportcmp"
	"github.com/sealmark/sealmark/internal/slowtest"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/sealmarktest"
)

// TestVictimDoors runs only as the child of TestBothDoorsOneReport: the
// go test door on the sealmarktest.Config in $VICTIM_CONFIG.
func TestVictimDoors(t *testing.T) {
	raw, ok := os.LookupEnv("VICTIM_CONFIG")
	if !ok {
		t.Skip("runs only as the child of TestBothDoorsOneReport")
	}
	var cfg sealmarktest.Config
	require.NoError(t, json.Unmarshal([]byte(raw), &cfg))
	sealmarktest.Server(t, cfg)
}

// goTestDoor runs cfg through sealmarktest.Server in a child go test
// process and returns its report, its output and whether it passed.
func goTestDoor(t *testing.T, cfg sealmarktest.Config, run string) (rep []byte, out string, passed bool) {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	raw, err := json.Marshal(cfg)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(self, "-test.run="+run, "-test.v", "-sealmark.report="+path)
	cmd.Env = append(os.Environ(), "VICTIM_CONFIG="+string(raw))
	b, err := cmd.CombinedOutput()
	set, rerr := os.ReadFile(path)
	require.NoError(t, rerr, "the go test door wrote no report:\n%s", b)
	require.NoError(t, report.ValidateJSON(set), "the go test door's report against docs/report.schema.json")
	var reps map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(set, &reps))
	require.Contains(t, reps, "TestVictimDoors", "the report is keyed by test name")
	return reps["TestVictimDoors"], string(b), err == nil
}

// cliDoor runs the settings the CLI would resolve from flags through the
// engine's own loop, as sealmark run does, and returns the JSON report and
// the exit code.
func cliDoor(t *testing.T, flags map[string]string) ([]byte, int) {
	t.Helper()
	res, err := config.Resolve(nil, nil, "", nil, flags)
	require.NoError(t, err)
	require.NoError(t, engine.CheckSettings(res, catalogue.All))
	cfg, err := engine.FromSettings(res.Settings)
	require.NoError(t, err)
	cfg.Version, cfg.Catalog = sealmarktest.Version, catalogue.All // as sealmark run does
	e, err := engine.New(cfg)
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	var b strings.Builder
	require.NoError(t, report.WriteJSON(&b, rep))
	return []byte(b.String()), report.ExitCode(rep, *cfg.FailOn)
}

func sameReport(t *testing.T, cli, goTest []byte) {
	t.Helper()
	a, err := reportcmp.Timeless(cli)
	require.NoError(t, err)
	b, err := reportcmp.Timeless(goTest)
	require.NoError(t, err)
	assert.Equal(t, a, b, "sealmark run and go test disagree")
}

// TestBothDoorsOneReport runs the same server with the same settings
// through sealmark run's path (flags → config.Resolve → engine.FromSettings
// → engine.Run) and through sealmarktest.Server in a go test child: the
// two JSON reports are identical apart from timing, for a server that
// passes, one that cannot start, one with findings a baseline accepts (and
// a stale baseline entry), and an HTTP server the harness starts.
func TestBothDoorsOneReport(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the same server through sealmark run's path and go test's")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	stdio := func(flaws string) (sealmarktest.Config, map[string]string) {
		dir := t.TempDir()
		cfg := sealmarktest.Config{Command: self, Args: []string{fixture.Verb, "-flaws=" + flaws}, SandboxDir: dir,
			StartTimeout: slowtest.Scale(10 * time.Second), Packs: []string{"core"}}
		cmd, _ := json.Marshal(append([]string{self}, cfg.Args...))
		return cfg, map[string]string{"command": string(cmd), "sandbox-dir": dir, "timeout": slowtest.Scale(10 * time.Second).String(), "packs": "core"}
	}

	t.Run("passes", func(t *testing.T) {
		cfg, flags := stdio("")
		cli, code := cliDoor(t, flags)
		goTest, out, passed := goTestDoor(t, cfg, "^TestVictimDoors$")
		assert.Equal(t, report.ExitClean, code)
		assert.True(t, passed, out)
		sameReport(t, cli, goTest)
	})

	t.Run("cannot-start", func(t *testing.T) {
		// An unknown flaw makes the fixture print its usage and exit.
		cfg, flags := stdio("no-such-flaw")
		cfg.Packs = nil // every pack
		delete(flags, "packs")
		cli, code := cliDoor(t, flags)
		goTest, out, passed := goTestDoor(t, cfg, "^TestVictimDoors$")
		assert.Equal(t, report.ExitHarness, code)
		assert.False(t, passed)
		sameReport(t, cli, goTest)
		assert.Contains(t, out, "--- FAIL: TestVictimDoors/core ")
		assert.Equal(t, 1, strings.Count(out, "the server did not start"), "one failure, not one per pack:\n%s", out)
		for _, pk := range catalogue.All[1:] {
			assert.Contains(t, out, "--- SKIP: TestVictimDoors/"+pk.Name+" ", "every later pack is skipped")
		}
		assert.Contains(t, out, "server did not start (see core)")
		var rep report.Report
		require.NoError(t, json.Unmarshal(goTest, &rep))
		assert.Len(t, rep.Packs, 1, "only core tried to start")
		assert.Len(t, rep.NotCovered, len(catalogue.All)-1, "every later pack is not covered, with why")
	})

	t.Run("baseline", func(t *testing.T) {
		cfg, flags := stdio("echo-canary")
		first, code := cliDoor(t, flags)
		require.Equal(t, report.ExitFindings, code)
		rep, err := report.ReadJSON(strings.NewReader(string(first)))
		require.NoError(t, err)
		b := report.BaselineFrom(rep, "the fixture echoes its environment on purpose")
		b.Accepted = append(b.Accepted, report.BaselineEntry{Probe: "CORE-INITIALIZE", Fingerprint: "0000000000000000", Justification: "stale on purpose"})
		path := filepath.Join(t.TempDir(), "baseline.json")
		f, err := os.Create(path)
		require.NoError(t, err)
		require.NoError(t, report.WriteBaseline(f, b))
		require.NoError(t, f.Close())
		cfg.Baseline, flags["baseline"] = path, path

		cli, code := cliDoor(t, flags)
		goTest, out, passed := goTestDoor(t, cfg, "^TestVictimDoors$")
		assert.Equal(t, report.ExitFindings, code, "the stale entry fails the run")
		assert.False(t, passed, "the stale entry fails the test")
		sameReport(t, cli, goTest)
		assert.Contains(t, out, "--- PASS: TestVictimDoors/core/secret-echo", "an accepted finding does not fail its probe")
		assert.Contains(t, out, "accepted by the baseline: the fixture echoes its environment on purpose")
		assert.Contains(t, out, "baseline entries that match no finding (remove them): CORE-INITIALIZE 0000000000000000")
	})

	t.Run("fail-on", func(t *testing.T) {
		// One meaning of fail: at fail_on high, the critical canary echo
		// fails, the low and medium tool-name findings are warnings, and
		// every output says the same.
		cfg, flags := stdio("echo-canary,bad-tool-name")
		cfg.FailOn, flags["fail-on"] = packs.High, "high"
		cli, code := cliDoor(t, flags)
		goTest, out, passed := goTestDoor(t, cfg, "^TestVictimDoors$")
		sameReport(t, cli, goTest)
		rep, err := report.ReadJSON(strings.NewReader(string(cli)))
		require.NoError(t, err)

		assert.Equal(t, report.ExitFindings, code, "exit code: the critical finding fails the run")
		assert.False(t, passed, "go test: the critical finding fails the test")
		assert.Contains(t, out, "--- FAIL: TestVictimDoors/core/secret-echo ")
		assert.Contains(t, out, "--- PASS: TestVictimDoors/core/tools-list ", "go test: a low finding does not fail its probe")
		assert.Contains(t, out, `CORE-TOOLS-LIST low: tool name "read note!" is not 1-128 characters`, "go test: the low finding is logged")

		assert.Equal(t, "high", rep.FailOn, "JSON: the fail bar")
		assert.Equal(t, map[report.Outcome]int{report.OutcomeFail: 1, report.OutcomeWarn: 1, report.OutcomeAccepted: 0}, rep.Summary.Outcomes, "JSON: outcomes")

		var text strings.Builder
		require.NoError(t, report.WriteText(&text, rep))
		assert.Regexp(t, `(?m)^  FAIL +core/secret-echo +CORE-SECRET-ECHO critical`, text.String())
		assert.Regexp(t, `(?m)^  WARN +core/tools-list +CORE-TOOLS-LIST low`, text.String())
		assert.Regexp(t, `(?m)^summary: \d+ pass, 1 fail \(2 critical\), 1 warn \(1 medium, 1 low\), `, text.String())

		var junit strings.Builder
		require.NoError(t, report.WriteJUnit(&junit, rep))
		assert.Regexp(t, `<testcase classname="core" name="secret-echo" time="[0-9.]+">\s*<failure message="CORE-SECRET-ECHO critical`, junit.String())
		assert.Regexp(t, `<testcase classname="core" name="tools-list" time="[0-9.]+">\s*<system-out>warning: below fail_on high`, junit.String())
		assert.Contains(t, junit.String(), `<testsuite name="sealmark/core" tests="`+fmt.Sprint(len(rep.Packs[0].Probes))+`" failures="1" `)

		var sarif strings.Builder
		require.NoError(t, report.WriteSARIF(&sarif, rep, report.SARIFOptions{}))
		var log struct {
			Runs []struct {
				Results []struct {
					RuleID     string `json:"ruleId"`
					Level      string `json:"level"`
					Properties struct {
						Outcome string `json:"outcome"`
					} `json:"properties"`
				} `json:"results"`
			} `json:"runs"`
		}
		require.NoError(t, json.Unmarshal([]byte(sarif.String()), &log))
		levels := map[string][]string{}
		for _, r := range log.Runs[0].Results {
			levels[r.RuleID] = append(levels[r.RuleID], r.Level+"/"+r.Properties.Outcome)
		}
		assert.Equal(t, map[string][]string{
			"CORE-SECRET-ECHO": {"error/fail", "error/fail"},
			"CORE-TOOLS-LIST":  {"note/warn", "warning/warn"},
		}, levels, "SARIF: error only for what fails the run")
	})

	t.Run("http", func(t *testing.T) {
		dir := t.TempDir()
		start := self + " " + httpfixture.Verb + " -addr 127.0.0.1:{port} -flaws=no-origin-check"
		url := "http://127.0.0.1:{port}/mcp"
		cfg := sealmarktest.Config{URL: url, Start: start, SandboxDir: dir, StartTimeout: slowtest.Scale(10 * time.Second), Packs: []string{"core"}}
		cli, code := cliDoor(t, map[string]string{"url": url, "start": start, "sandbox-dir": dir, "timeout": slowtest.Scale(10 * time.Second).String(), "packs": "core"})
		goTest, out, passed := goTestDoor(t, cfg, "^TestVictimDoors$")
		assert.Equal(t, report.ExitFindings, code)
		assert.False(t, passed)
		sameReport(t, cli, goTest)
		assert.Contains(t, out, "--- FAIL: TestVictimDoors/core/http-foreign-origin")
	})
}

// TestFindingShownOnceAtTheProbe: a finding is printed once, at the
// source line of the Reportf in the probe's code that recorded it, with
// the same text the text report prints.
func TestFindingShownOnceAtTheProbe(t *testing.T) {
	out, err, _ := victim(t, "echo-canary", "^TestVictim$/^core$/^secret-echo$")
	require.Error(t, err)
	pos := reportfLine(t, "../packs/core/secrets.go", `p.Reportf("%s echoed in %s"`)
	require.True(t, strings.HasPrefix(pos, "secrets.go:"), pos)
	line := pos + ": CORE-SECRET-ECHO critical: SEALMARK_CANARY echoed in the response to tools/call debug_info [CWE-200]\n" +
		"        evidence: response: the response to tools/call debug_info contains the value of SEALMARK_CANARY\n"
	assert.Equal(t, 1, strings.Count(out, line), "shown once, at the probe:\n%s", out)
	assert.Equal(t, 1, strings.Count(out, "SEALMARK_CANARY echoed"), out)
	assert.NotContains(t, out, "server.go:", "no line points into sealmarktest")
}

// reportfLine is "file.go:N", the line of file that holds call.
func reportfLine(t *testing.T, file, call string) string {
	t.Helper()
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	for i, line := range strings.Split(string(src), "\n") {
		if strings.Contains(line, call) {
			return fmt.Sprintf("%s:%d", filepath.Base(file), i+1)
		}
	}
	t.Fatalf("%s holds no %s", file, call)
	return ""
}

// TestVictimPair runs only as the child of TestReportPerServerCall.
func TestVictimPair(t *testing.T) {
	if _, ok := os.LookupEnv("VICTIM_FLAWS"); !ok {
		t.Skip("runs only as the child of TestReportPerServerCall")
	}
	for _, name := range []string{"first", "second"} {
		t.Run(name, func(t *testing.T) { sealmarktest.Server(t, fixtureServer(t, "")) })
	}
}

// TestReportPerServerCall: the report holds every Server call, keyed by
// test name; a run in which no Server call ran writes no report and fails
// nothing.
func TestReportPerServerCall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.json")
	out, err, _ := victim(t, "", "^TestVictimPair$/./^core$/^initialize$", "-sealmark.report="+path)
	require.NoError(t, err, out)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, report.ValidateJSON(raw), "the keyed report against docs/report.schema.json")
	var set map[string]report.Report
	require.NoError(t, json.Unmarshal(raw, &set))
	require.Len(t, set, 2, "%s", raw)
	for _, name := range []string{"TestVictimPair/first", "TestVictimPair/second"} {
		require.Contains(t, set, name)
		assert.Equal(t, "CORE-INITIALIZE", set[name].Packs[0].Probes[0].ID)
	}

	none := filepath.Join(t.TempDir(), "none.json")
	out, err, _ = victim(t, "", "^TestNoSuchTest$", "-sealmark.report="+none)
	require.NoError(t, err, "no Server call ran: nothing fails\n%s", out)
	assert.NoFileExists(t, none)
}

// TestWithoutMainFailsNamingTheFix: a package whose TestMain does not call
// Main would run the server uncontained; Server fails at once, naming the
// fix, and starts nothing.
func TestWithoutMainFailsNamingTheFix(t *testing.T) {
	t.Setenv("VICTIM_NO_MAIN", "1")
	out, err, sandboxes := victim(t, "", "^TestVictim$")
	require.Error(t, err)
	assert.Contains(t, out, "--- FAIL: TestVictim ")
	assert.Contains(t, out, "func TestMain(m *testing.M) { sealmarktest.Main(m) }")
	assert.Contains(t, out, "no server was started")
	assert.NotContains(t, out, "TestVictim/core", "nothing ran")
	entries, err := os.ReadDir(sandboxes)
	require.NoError(t, err)
	assert.Empty(t, entries, "no sandbox was made")
}

// TestDriftUnderRunCore: the drift check is core's last step, so -run
// Packs/core alone checks it, and a rug pull fails it.
func TestDriftUnderRunCore(t *testing.T) {
	out, err, _ := victim(t, "rug-pull", "^TestVictim$/^core$/^(initialize|tool-drift)$")
	require.Error(t, err)
	assert.Contains(t, out, "--- FAIL: TestVictim/core/tool-drift")
	assert.Contains(t, out, `CORE-DRIFT high: the tool list changed since the first start: the description of "read_note" changed`)
	assert.Contains(t, out, "--- PASS: TestVictim/core/initialize")
}
