package main

import (
	"bytes"
	"encoding/json"
	"github.com/sealmark/sealmark/internal/contain"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/example"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/fixture/fsserver"
	"github.com/sealmark/sealmark/internal/fixture/httpfixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
	buildversion "github.com/sealmark/sealmark/internal/version"
)

// cliEnv makes the test binary act as the sealmark CLI in a subprocess.
const cliEnv = "SEALMARK_TEST_AS_CLI"

func TestMain(m *testing.M) {
	// Every JSON report a test writes, here or in a CLI subprocess, is
	// validated against the published schema (a mismatch is a write error).
	report.SetWriteCheck(report.ValidateJSON)
	contain.Dispatch()
	smbin.Dispatch()
	fixture.Dispatch()
	example.Dispatch()
	fsserver.Dispatch()
	httpfixture.Dispatch()
	if os.Getenv(cliEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// sealmark runs the CLI in-process.
func sealmark(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// serverArgs is the fixture server with flaws, as a command line.
func serverArgs(t *testing.T, flaws string) []string {
	self, err := os.Executable()
	require.NoError(t, err)
	return []string{self, fixture.Verb, "-flaws=" + flaws}
}

// runArgs is sealmark run in a sandbox directory of the test's own. The
// tests whose runs touch nothing else (no environment, no working
// directory, no look at other processes) run in parallel: a run is
// sandboxed and mostly waits on its server.
func runArgs(t *testing.T, extra ...string) []string {
	return append([]string{"run", "--sandbox-dir", t.TempDir(), "--call-timeout", "2s"}, extra...)
}

func TestSecretEchoFailsTheRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "report.json")
	args := append(runArgs(t, "--json", jsonPath, "--"), serverArgs(t, "echo-canary")...)
	code, out, errOut := sealmark(t, args...)
	assert.Equal(t, 1, code, "stderr: %s", errOut)
	assert.Regexp(t, `FAIL +core/secret-echo +CORE-SECRET-ECHO critical: SEALMARK_CANARY echoed in the response to tools/call debug_info`, out)
	assert.NotContains(t, out, "sm-canary-", "the canary value is masked")
	raw, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	var rep struct {
		Schema string
		Packs  []struct {
			Probes []struct {
				ID, Verdict string
			}
		}
	}
	require.NoError(t, json.Unmarshal(raw, &rep))
	assert.Equal(t, "sealmark.report/v1", rep.Schema)
	verdicts := map[string]string{}
	for _, p := range rep.Packs[0].Probes {
		verdicts[p.ID] = p.Verdict
	}
	assert.Equal(t, "fail", verdicts["CORE-SECRET-ECHO"])
	assert.NotContains(t, string(raw), "sk-sealmark-fake-")
}

func TestWellBehavedServerPasses(t *testing.T) {
	t.Parallel()
	code, out, errOut := sealmark(t, append(runArgs(t, "--verbose", "--"), serverArgs(t, "")...)...)
	assert.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.Regexp(t, `PASS +secret-echo +CORE-SECRET-ECHO`, out)
	assert.Contains(t, out, "STANDARD")
}

func TestFailOnLowersTheBar(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run per --fail-on bar")
	}
	t.Parallel()
	// stdout-banner is a medium finding: exit 0 at the default bar, 1 at medium.
	code, _, _ := sealmark(t, append(runArgs(t, "--"), serverArgs(t, "stdout-banner")...)...)
	assert.Equal(t, 0, code)
	code, out, _ := sealmark(t, append(runArgs(t, "--fail-on", "medium", "--"), serverArgs(t, "stdout-banner")...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "stdout line 1 is a line that is not JSON")
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "usage: sealmark"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"run"}, "no server: set server.command (or give the command after --)"},
		{[]string{"run", "--packs", "nope", "--", "x"}, `unknown pack "nope"`},
		{[]string{"run", "--fail-on", "severe", "--", "x"}, `--fail-on: want low, medium, high or critical, got "severe"`},
		{[]string{"run", "--env", "NOEQUALS", "--", "x"}, `--env: want NAME=VALUE`},
		{[]string{"run", "--url", "http://127.0.0.1:9/mcp", "--", "x"}, "are both set without server.start"},
		{[]string{"run", "--start", "x", "--", "y"}, "server.start"},
		{[]string{"run", "--config", "/nonexistent/sealmark.yaml", "--", "x"}, "/nonexistent/sealmark.yaml"},
		{[]string{"run", "--example", "--", "x"}, "give no command with it"},
		{[]string{"run", "--active", "--", "x"}, "--active needs confirmation"},
		{[]string{"run", "--fixture", "fs"}, "--fixture KIND and --into DIR go together"},
		{[]string{"run", "--fixture", "zip", "--into", "x"}, `--fixture "zip": want fs or git`},
		{[]string{"run", "--no-such-flag"}, "flag provided but not defined"},
	} {
		code, _, errOut := sealmark(t, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Contains(t, errOut, tc.want, "%v", tc.args)
	}
}

func TestServerThatCannotStartIsExit3(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server that cannot start, waited out")
	}
	t.Parallel()
	code, out, _ := sealmark(t, runArgs(t, "--timeout", "2s", "--", "sealmark-no-such-program")...)
	assert.Equal(t, 3, code)
	assert.Contains(t, out, "sealmark-no-such-program")

	code, out, _ = sealmark(t, append(runArgs(t, "--timeout", "2s", "--"), serverArgs(t, "hang-init")...)...)
	assert.Equal(t, 3, code)
	assert.Contains(t, out, "error: pack core: no answer to initialize within 2s: raise timeouts.start (--timeout) if the server needs longer to start")
}

func TestKeepSandboxPrintsThePath(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run with --keep-sandbox")
	}
	t.Parallel()
	parent := t.TempDir()
	code, _, errOut := sealmark(t, append([]string{"run", "--sandbox-dir", parent, "--keep-sandbox", "--packs", "core", "--"}, serverArgs(t, "")...)...)
	require.Equal(t, 0, code, errOut)
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	kept := filepath.Join(parent, entries[0].Name())
	assert.Contains(t, errOut, "keeping the sandbox at "+kept)
	for _, sub := range []string{"root/ok.txt", "root-evil", "canary", "home", "tmp", "bin/sm-canary"} {
		_, err := os.Lstat(filepath.Join(kept, sub))
		assert.NoError(t, err, sub)
	}
}

func TestFixtureIntoWritesTheLayout(t *testing.T) {
	into := filepath.Join(t.TempDir(), "fx")
	code, out, errOut := sealmark(t, "run", "--fixture", "fs", "--into", into)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "SEALMARK-FIXTURE.txt")
	guide, err := os.ReadFile(filepath.Join(into, "SEALMARK-FIXTURE.txt"))
	require.NoError(t, err)
	for _, path := range []string{"root/ok.txt", "root/link-dir", "root/link-file", "root-evil", "canary/secret.txt", "home", "tmp", "sm-canary"} {
		assert.Contains(t, string(guide), path)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := sealmark(t, "version")
	assert.Equal(t, 0, code)
	assert.Equal(t, "sealmark "+buildversion.String()+"\n", out, "the version from the build information")
}

func TestSARIFAndJUnitOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run writing SARIF and JUnit")
	}
	t.Parallel()
	dir := t.TempDir()
	sarif, junit := filepath.Join(dir, "r.sarif"), filepath.Join(dir, "r.xml")
	code, _, errOut := sealmark(t, append(runArgs(t, "--sarif", sarif, "--junit", junit, "--"), serverArgs(t, "echo-canary")...)...)
	require.Equal(t, 1, code, errOut)
	raw, err := os.ReadFile(sarif)
	require.NoError(t, err)
	var log struct {
		Version string
		Runs    []struct {
			Results []struct{ RuleID string }
		}
	}
	require.NoError(t, json.Unmarshal(raw, &log))
	assert.Equal(t, "2.1.0", log.Version)
	require.NotEmpty(t, log.Runs[0].Results)
	assert.Equal(t, "CORE-SECRET-ECHO", log.Runs[0].Results[0].RuleID)
	x, err := os.ReadFile(junit)
	require.NoError(t, err)
	assert.Contains(t, string(x), `name="secret-echo"`)
	assert.NotContains(t, string(raw)+string(x), "sm-canary-")
}

func TestDiffReportsRegression(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two runs and the diff between them")
	}
	t.Parallel()
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	code, _, _ := sealmark(t, append(runArgs(t, "--json", good, "--"), serverArgs(t, "")...)...)
	require.Equal(t, 0, code)
	code, _, _ = sealmark(t, append(runArgs(t, "--json", bad, "--"), serverArgs(t, "echo-canary")...)...)
	require.Equal(t, 1, code)

	code, out, _ := sealmark(t, "diff", good, bad)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "CORE-SECRET-ECHO")
	code, _, _ = sealmark(t, "diff", bad, good)
	assert.Equal(t, 0, code, "fixing findings is no regression")
	code, _, errOut := sealmark(t, "diff", good)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "usage: sealmark diff")
	code, _, errOut = sealmark(t, "diff", good, filepath.Join(dir, "missing.json"))
	assert.Equal(t, 3, code)
	assert.Contains(t, errOut, "missing.json")
}

func TestBaselineAcceptsAFinding(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs against a baseline")
	}
	t.Parallel()
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "r.json")
	code, _, _ := sealmark(t, append(runArgs(t, "--fail-on", "medium", "--json", jsonPath, "--"), serverArgs(t, "stdout-banner")...)...)
	require.Equal(t, 1, code)
	raw, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	var rep struct {
		Packs []struct {
			Probes []struct {
				ID       string
				Findings []struct{ Fingerprint string }
			}
		}
	}
	require.NoError(t, json.Unmarshal(raw, &rep))
	var fp string
	for _, p := range rep.Packs[0].Probes {
		if p.ID == "CORE-STDOUT-JSONRPC" {
			fp = p.Findings[0].Fingerprint
		}
	}
	require.NotEmpty(t, fp)
	base := filepath.Join(dir, "baseline.json")
	require.NoError(t, os.WriteFile(base, []byte(`{"accepted":[{"probe":"CORE-STDOUT-JSONRPC","fingerprint":"`+fp+`","justification":"the banner goes away in v2"}]}`), 0o600))
	code, out, errOut := sealmark(t, append(runArgs(t, "--fail-on", "medium", "--baseline", base, "--"), serverArgs(t, "stdout-banner")...)...)
	assert.Equal(t, 0, code, "the accepted finding does not fail the run: %s", errOut)
	assert.Contains(t, out, "accepted by the baseline: the banner goes away in v2")

	code, out, _ = sealmark(t, append(runArgs(t, "--fail-on", "medium", "--baseline", base, "--"), serverArgs(t, "")...)...)
	assert.Equal(t, 1, code, "a stale baseline entry fails the run")
	assert.Contains(t, out, "baseline: stale entry")
}

func TestYAMLProbesRunAsTheUsersPack(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run of a user's YAML pack")
	}
	t.Parallel()
	dir := t.TempDir()
	self, err := os.Executable()
	require.NoError(t, err)
	cfgPath := filepath.Join(dir, "sealmark.yaml")
	yaml := `server:
  command: "` + self + `"
  args: ["` + fixture.Verb + `", "-flaws=write-outside"]
packs: [core]
probes:
  - name: stays-inside-root
    tool: read_note
    args: {name: "{sandbox}/../canary/secret.txt"}
    expect: [no_canary, no_file_changes_outside_root]
`
	require.NoError(t, os.WriteFile(cfgPath, []byte(yaml), 0o600))
	jsonPath := filepath.Join(dir, "r.json")
	code, out, errOut := sealmark(t, "run", "--config", cfgPath, "--sandbox-dir", t.TempDir(), "--call-timeout", "2s", "--json", jsonPath)
	assert.Equal(t, 1, code, errOut)
	assert.Regexp(t, `FAIL +mine/stays-inside-root +USER-STAYS-INSIDE-ROOT high: row stays-inside-root`, out)
	raw, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"user": true`)
	assert.Contains(t, string(raw), `"class": "STANDARD"`, "the user's own probes do not change the class")

	require.NoError(t, os.WriteFile(cfgPath, []byte(yaml+"  - name: Bad Row\n    tool: x\n"), 0o600))
	code, _, errOut = sealmark(t, "run", "--config", cfgPath)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "Bad Row")
}

func TestFlagDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--jsn", "x"}, "flag provided but not defined: -jsn (did you mean --json?)\n"},
		{[]string{"run", "--fail_on", "low"}, "flag provided but not defined: -fail_on (did you mean --fail-on?)\n"},
		{[]string{"doctor", "--sandox-dir", "x"}, "flag provided but not defined: -sandox-dir (did you mean --sandbox-dir?)\n"},
		{[]string{"init", "--forse"}, "flag provided but not defined: -forse (did you mean --force?)\n"},
		{[]string{"diff", "--fial-on", "low"}, "flag provided but not defined: -fial-on (did you mean --fail-on?)\n"},
		{[]string{"scan", "--job", "2"}, "flag provided but not defined: -job (did you mean --jobs?)\n"},
		{[]string{"merge", "--jsn", "x"}, "flag provided but not defined: -jsn (did you mean --json?)\n"},
		{[]string{"run", "--zzzzzzzz"}, "flag provided but not defined: -zzzzzzzz\n"},
	} {
		code, _, errOut := sealmark(t, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.True(t, strings.HasPrefix(errOut, tc.want), "%v: the first line, then the usage:\n%s", tc.args, errOut)
		assert.Contains(t, errOut, "usage: sealmark "+tc.args[0], "%v", tc.args)
	}
}
