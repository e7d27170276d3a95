package sealmarktest_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/fixture/httpfixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/slowtest"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/sealmarktest"
)

func TestMain(m *testing.M) {
	// The go test door's report, written by Main in this binary's victim
	// runs, is validated against the published schema before it is written.
	report.SetWriteCheck(report.ValidateJSON)
	fixture.Dispatch()
	httpfixture.Dispatch()
	if os.Getenv("VICTIM_NO_MAIN") != "" {
		os.Exit(m.Run()) // a package that forgot Main (TestWithoutMainFailsNamingTheFix)
	}
	sealmarktest.Main(m)
}

// fixtureServer is a Config for the fixture server built into this test
// binary, with the given flaws.
func fixtureServer(t *testing.T, flaws string) sealmarktest.Config {
	self, err := os.Executable()
	require.NoError(t, err)
	cfg := sealmarktest.Config{
		Command: self, Args: []string{fixture.Verb, "-flaws=" + flaws},
		SandboxDir: os.Getenv("VICTIM_SANDBOX_DIR"), StartTimeout: slowtest.Scale(3 * time.Second),
	}
	if off := os.Getenv("VICTIM_LAYERS_OFF"); off != "" {
		cfg.LayersOff = strings.Split(off, ",")
	}
	return cfg
}

// TestPacks is what a user writes: the well-behaved fixture passes.
func TestPacks(t *testing.T) {
	sealmarktest.Server(t, fixtureServer(t, ""))
}

// TestVictim only runs in a child go test process started by the tests
// below, against the flaws named in $VICTIM_FLAWS.
func TestVictim(t *testing.T) {
	flaws, ok := os.LookupEnv("VICTIM_FLAWS")
	if !ok {
		t.Skip("runs only as the child of TestFindingFailsTheProbe")
	}
	sealmarktest.Server(t, fixtureServer(t, flaws))
}

// victim runs TestVictim in a child process and returns its output.
func victim(t *testing.T, flaws, run string, extra ...string) (string, error, string) {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	sandboxes := t.TempDir()
	cmd := exec.Command(self, append([]string{"-test.run=" + run, "-test.v"}, extra...)...)
	cmd.Env = append(os.Environ(), "VICTIM_FLAWS="+flaws, "VICTIM_SANDBOX_DIR="+sandboxes)
	out, err := cmd.CombinedOutput()
	return string(out), err, sandboxes
}

func TestFindingFailsTheProbe(t *testing.T) {
	reportPath := filepath.Join(t.TempDir(), "report.json")
	out, err, sandboxes := victim(t, "echo-canary", "^TestVictim$", "-sealmark.report="+reportPath)
	require.Error(t, err, "a critical finding must fail the test binary")
	assert.Contains(t, out, "--- FAIL: TestVictim/core/secret-echo")
	assert.Contains(t, out, "CORE-SECRET-ECHO critical: SEALMARK_CANARY echoed in the response to tools/call debug_info")
	assert.Contains(t, out, "evidence: response:")
	assert.Contains(t, out, "--- PASS: TestVictim/core/initialize")
	assert.NotContains(t, out, "sm-canary-", "canary values are masked in test output")
	assert.NotContains(t, out, "sk-sealmark-fake-")

	raw, err := os.ReadFile(reportPath)
	require.NoError(t, err, "the report is written")
	var set map[string]struct{ Schema, Class string }
	require.NoError(t, json.Unmarshal(raw, &set))
	rep := set["TestVictim"]
	assert.Equal(t, "sealmark.report/v1", rep.Schema)
	assert.Equal(t, "STANDARD", rep.Class)
	assert.NotContains(t, string(raw), "sm-canary-")

	entries, err := os.ReadDir(sandboxes)
	require.NoError(t, err)
	assert.Empty(t, entries, "the sandbox is deleted at cleanup")
}

func TestLayersOffMakesTheRunCustom(t *testing.T) {
	reportPath := filepath.Join(t.TempDir(), "report.json")
	t.Setenv("VICTIM_LAYERS_OFF", "landlock,fsize")
	out, err, _ := victim(t, "", "^TestVictim$/^core$/^initialize$", "-sealmark.report="+reportPath)
	require.NoError(t, err, out)
	raw, err := os.ReadFile(reportPath)
	require.NoError(t, err, "the report is written")
	var set map[string]struct {
		Class        string
		ClassReasons []string
		Sandbox      struct{ Isolation string }
	}
	require.NoError(t, json.Unmarshal(raw, &set))
	rep := set["TestVictim"]
	assert.Equal(t, "CUSTOM", rep.Class)
	assert.Contains(t, rep.ClassReasons, "sandbox.layers_off: landlock, fsize: the server ran with weaker containment")
	assert.NotContains(t, rep.Sandbox.Isolation, "fs=landlock(", "landlock is off")
	assert.NotContains(t, rep.Sandbox.Isolation, "rlimits=fsize", "the file size cap is off")
	if probe := contain.Probe(); probe.LandlockFS.Applied && probe.FileSize.Applied {
		assert.Contains(t, rep.Sandbox.Isolation, "fs=none(landlock-fs: off by config)")
		assert.Contains(t, rep.Sandbox.Isolation, "rlimits=none(rlimit-fsize: off by config)")
	}

	t.Setenv("VICTIM_LAYERS_OFF", "selinux")
	out, err, _ = victim(t, "", "^TestVictim$")
	require.Error(t, err, "an unknown layer fails the test")
	assert.Contains(t, out, `sealmarktest: Config.LayersOff: sandbox.layers_off: unknown containment layer "selinux" (known: landlock, seccomp, namespaces, cgroup, fsize, quota, secrets)`)
}

func TestRunSelectsOneProbe(t *testing.T) {
	out, err, _ := victim(t, "echo-canary", "^TestVictim$/^core$/^secret-echo$")
	require.Error(t, err)
	assert.Contains(t, out, "--- FAIL: TestVictim/core/secret-echo")
	assert.NotContains(t, out, "TestVictim/core/initialize", "-run selects one probe")
	// The sweep still runs for secret-echo, so the canary is found.
	assert.Contains(t, out, "SEALMARK_CANARY echoed")
}

func TestLowFindingsAreLoggedNotFailed(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run whose findings are below the bar")
	}
	out, err, _ := victim(t, "stdout-banner", "^TestVictim$")
	require.NoError(t, err, out)
	assert.Contains(t, out, "CORE-STDOUT-JSONRPC medium: stdout line 1 is a line that is not JSON")
	assert.Contains(t, out, "--- PASS: TestVictim/core/stdout-jsonrpc-only")
}

func TestServerThatCannotStartFailsThePack(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server that cannot start, waited out")
	}
	out, err, _ := victim(t, "hang-init", "^TestVictim$", "-test.timeout=2m")
	require.Error(t, err)
	assert.Contains(t, out, "--- FAIL: TestVictim/core")
	assert.Contains(t, out, "the server did not start")
	assert.True(t, strings.Contains(out, "sealmark-fixture ready"), "the failure shows the server log tail:\n%s", out)
}

// TestStructuralChecksAreNoSubtests: on a stdio server of the legacy era,
// the HTTP transport checks and the modern era's rules cannot apply; go
// test creates no subtest for them and says so in one line per reason,
// while the report still records each as not applicable.
func TestStructuralChecksAreNoSubtests(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a full run to list its structural checks")
	}
	reportPath := filepath.Join(t.TempDir(), "report.json")
	out, err, _ := victim(t, "", "^TestVictim$/^core$", "-sealmark.report="+reportPath)
	require.NoError(t, err, out)
	assert.NotContains(t, out, "TestVictim/core/http-", "no subtest for an HTTP check on a stdio server")
	assert.NotContains(t, out, "TestVictim/core/modern-", "no subtest for a modern-era rule on a legacy server")
	assert.Contains(t, out, "not applicable by construction, not run (an HTTP transport check; this server speaks stdio): "+
		"http-foreign-origin, http-foreign-host, http-unknown-session, http-deleted-session, http-session-id, http-notification-202, http-protocol-version, ")
	assert.Regexp(t, `not applicable by construction, not run \(a rule of the modern era \(2026-07-28\); this server speaks the legacy protocol 2025-11-25\): discover, modern-meta-required, `, out)
	assert.Equal(t, 2, strings.Count(out, "not applicable by construction"), "one line per reason:\n%s", out)
	assert.Contains(t, out, "--- PASS: TestVictim/core/initialize")

	raw, err := os.ReadFile(reportPath)
	require.NoError(t, err)
	var set map[string]report.Report
	require.NoError(t, json.Unmarshal(raw, &set))
	na := 0
	for _, pr := range set["TestVictim"].Packs[0].Probes {
		if strings.HasPrefix(pr.Name, "http-") {
			assert.Equal(t, packs.NotApplicable, pr.Verdict, pr.Name)
			assert.Equal(t, "an HTTP transport check; this server speaks stdio", pr.Reason, pr.Name)
			na++
		}
	}
	assert.Greater(t, na, 8, "the report still lists every HTTP check, not applicable")
}
