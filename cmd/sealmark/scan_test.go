package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/fixture/httpfixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/reportcmp"
	"github.com/sealmark/sealmark/packs"
)

// startHTTPFixture serves the HTTP fixture from a child process on a free
// loopback port until the test ends, and returns its MCP URL.
func startHTTPFixture(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	self, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(self, httpfixture.Verb, "-addr", addr)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return "http://" + addr + "/mcp"
		}
		require.True(t, time.Now().Before(deadline), "the HTTP fixture never listened on %s", addr)
		time.Sleep(20 * time.Millisecond)
	}
}

func randomHex(t *testing.T) string {
	b := make([]byte, 12)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o600))
}

// TestScanFiveServers: a Claude Desktop config (a clean fixture, a flawed
// one, one that cannot start) and a VS Code one (an HTTP server, a fixture
// whose env names a host directory) scanned at --jobs 2: each server gets
// its own verdict, at most two run at once and some do, one exit code
// over all, secrets from env and headers in no output, and the merged
// JSON, SARIF and JUnit hold one part per server; merge and diff read it.
func TestScanFiveServers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a scan of five servers from two config files")
	}
	t.Parallel()
	dir := t.TempDir()
	self, err := os.Executable()
	require.NoError(t, err)
	url := startHTTPFixture(t)
	envSecret := "ghp_" + randomHex(t) // token-shaped under a name that does not look secret
	headerSecret := "sk-" + randomHex(t)
	notes := filepath.Join(dir, "notes")
	require.NoError(t, os.Mkdir(notes, 0o700))
	fixtureEntry := func(flags ...string) map[string]any {
		return map[string]any{"command": self, "args": append([]string{fixture.Verb}, flags...), "env": map[string]string{"UPSTREAM_PAT": envSecret}}
	}
	claude := filepath.Join(dir, "claude_desktop_config.json")
	writeJSONFile(t, claude, map[string]any{"mcpServers": map[string]any{
		"clean":   fixtureEntry("-name=clean"),
		"flawed":  fixtureEntry("-flaws=echo-canary"),
		"nostart": map[string]any{"command": filepath.Join(dir, "no-such-server")},
	}})
	vscode := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(vscode, []byte(fmt.Sprintf(`{
  // VS Code's form: servers, types, comments and trailing commas
  "servers": {
    "http": {"type": "http", "url": %q, "headers": {"Authorization": "Bearer %s"}},
    "notes": {"type": "stdio", "command": %q, "args": [%q, "-name=notes"], "env": {"NOTES_DIR": %q}},
  },
}`, url, headerSecret, self, fixture.Verb, notes)), 0o600))

	out := func(name string) string { return filepath.Join(dir, name) }
	code, stdout, stderr := sealmark(t, "scan", "--jobs", "2", "--packs", "core", "--sandbox-dir", t.TempDir(), "--call-timeout", "2s",
		"--cache-dir", t.TempDir(), "--json", out("scan.json"), "--sarif", out("scan.sarif"), "--junit", out("scan.xml"), claude, vscode)
	assert.Equal(t, report.ExitHarness, code, "one server could not start: the scan's exit code says so\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	for _, row := range []string{
		`clean +direct +pass +- `, `flawed +direct +FAIL +CORE-SECRET-ECHO critical `, `nostart +direct +ERROR +- `,
		`http +http +warn +CORE-BOGUS-CURSOR low `, `notes +direct +pass +- `, // the HTTP fixture's one finding is below --fail-on
	} {
		assert.Regexp(t, `(?m)^`+row, stdout)
	}
	assert.Contains(t, stdout, "scan: 5 servers: 2 pass, 1 warn, 1 fail, 1 error")
	assert.Regexp(t, `nostart:\n  harness error: .*no-such-server`, stdout)

	f, err := os.Open(out("scan.json"))
	require.NoError(t, err)
	named, err := report.ReadJSONSet(f)
	f.Close()
	require.NoError(t, err)
	reps := map[string]*report.Report{}
	var names []string
	for _, n := range named {
		reps[n.Name] = n.Report
		names = append(names, n.Name)
	}
	require.Equal(t, []string{"clean", "flawed", "http", "nostart", "notes"}, names)
	for name, want := range map[string]int{"clean": 0, "flawed": 1, "http": 0, "nostart": 3, "notes": 0} {
		assert.Equal(t, want, report.ExitCode(reps[name], packs.High), name)
	}
	assert.Equal(t, "http", reps["http"].Protocol.Transport)
	assert.Equal(t, "sealmark-httpfixture", reps["http"].Protocol.ServerName)
	assert.Equal(t, "notes", reps["notes"].Protocol.ServerName)
	assert.Contains(t, reps["notes"].Server.Env, report.EnvEntry{Name: "NOTES_DIR", Value: "{sandbox}"}, "the host directory is replaced by the sandbox root")
	assert.Contains(t, reps["notes"].Warnings, "scan: env NOTES_DIR: the path "+notes+" on this machine was replaced with {sandbox}")
	assert.Equal(t, report.Standard, reps["notes"].Class)

	// Parallel, and bounded: at each run's start, count the runs under way.
	most := 0
	for _, a := range named {
		under := 0
		for _, b := range named {
			if !b.Report.Started.After(a.Report.Started) && b.Report.Finished.After(a.Report.Started) {
				under++
			}
		}
		most = max(most, under)
	}
	assert.Equal(t, 2, most, "--jobs 2: two servers ran at once, never three")

	var sarif struct {
		Runs []struct {
			AutomationDetails struct{ ID string } `json:"automationDetails"`
			Results           []struct{ RuleID string }
		}
	}
	data, err := os.ReadFile(out("scan.sarif"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sarif))
	var ids []string
	for _, r := range sarif.Runs {
		ids = append(ids, r.AutomationDetails.ID)
		if r.AutomationDetails.ID == "sealmark/flawed/" || r.AutomationDetails.ID == "sealmark/http/" {
			assert.NotEmpty(t, r.Results)
		} else {
			assert.Empty(t, r.Results, r.AutomationDetails.ID)
		}
	}
	assert.Equal(t, []string{"sealmark/clean/", "sealmark/flawed/", "sealmark/nostart/", "sealmark/http/", "sealmark/notes/"}, ids,
		"one run per server, in the configurations' order, each its own code scanning category")
	junit, err := os.ReadFile(out("scan.xml"))
	require.NoError(t, err)
	for _, name := range names {
		assert.Contains(t, string(junit), `<testsuite name="`+name+`"`)
	}

	for what, text := range map[string]string{"stdout": stdout, "stderr": stderr, "json": readString(t, out("scan.json")), "sarif": string(data), "junit": string(junit)} {
		assert.NotContains(t, text, envSecret, "the env secret in %s", what)
		assert.NotContains(t, text, headerSecret, "the header secret in %s", what)
	}

	// merge: per-server reports (a CI matrix's) merge back into the same report.
	var parts []string
	for _, n := range named {
		p := out(n.Name + ".json")
		w, err := os.Create(p)
		require.NoError(t, err)
		require.NoError(t, report.WriteJSON(w, n.Report))
		require.NoError(t, w.Close())
		parts = append(parts, p)
	}
	code, mergedOut, mergeErr := sealmark(t, append([]string{"merge", "--json", out("merged.json")}, parts...)...)
	assert.Equal(t, report.ExitHarness, code, mergeErr)
	assert.JSONEq(t, readString(t, out("scan.json")), readString(t, out("merged.json")))
	assert.Regexp(t, `(?m)^flawed +direct +FAIL +CORE-SECRET-ECHO critical `, mergedOut)
	code, _, mergeErr = sealmark(t, "merge", parts[0], parts[0])
	assert.Equal(t, report.ExitHarness, code)
	assert.Contains(t, mergeErr, `a server named "clean" is already in an earlier report`)

	// diff: a merged report against one without the flawed server.
	code, diffOut, diffErr := sealmark(t, "merge", "--json", out("before.json"), parts[0], parts[2], parts[4])
	require.Equal(t, report.ExitClean, code, diffErr)
	code, diffOut, diffErr = sealmark(t, "diff", out("before.json"), out("merged.json"))
	assert.Equal(t, report.ExitFindings, code, diffErr)
	assert.Regexp(t, `== flawed\n\(only in NEW\)\n(.*\n)*new: CORE-SECRET-ECHO critical`, diffOut)
	assert.Contains(t, diffOut, "== clean\n")
}

func readString(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// TestScanAsConfiguredIsCustom: --as-configured gives the server its host
// path and the run is CUSTOM, naming why.
func TestScanAsConfiguredIsCustom(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a scan with --as-configured")
	}
	t.Parallel()
	dir := t.TempDir()
	self, err := os.Executable()
	require.NoError(t, err)
	cfg := filepath.Join(dir, "c.json")
	writeJSONFile(t, cfg, map[string]any{"mcpServers": map[string]any{
		"notes": map[string]any{"command": self, "args": []string{fixture.Verb}, "env": map[string]string{"NOTES_DIR": dir}},
	}})
	code, stdout, stderr := sealmark(t, "scan", "--as-configured", "--packs", "core", "--sandbox-dir", t.TempDir(), "--call-timeout", "2s", "--json", filepath.Join(dir, "r.json"), cfg)
	require.Equal(t, report.ExitClean, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	f, err := os.Open(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	defer f.Close()
	rep, err := report.ReadJSON(f)
	require.NoError(t, err)
	assert.Equal(t, report.Custom, rep.Class)
	assert.Equal(t, []string{"scan --as-configured: the server got host paths (env NOTES_DIR)"}, rep.ClassReasons)
	assert.True(t, slices.ContainsFunc(rep.Warnings, func(w string) bool {
		return strings.Contains(w, "env NOTES_DIR is a path on this machine, kept as configured")
	}))
}

func TestScanListConfigs(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Chdir(cwd)
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".cursor"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".cursor", "mcp.json"), []byte(`{"mcpServers": {}}`), 0o600))
	code, stdout, _ := sealmark(t, "scan", "--list-configs")
	require.Equal(t, 0, code)
	assert.Regexp(t, `(?m)^Cursor \(user\) +found +`+regexp.QuoteMeta(filepath.Join(home, ".cursor", "mcp.json"))+`  \(0 servers\)$`, stdout)
	assert.Regexp(t, `(?m)^Windsurf +not found +`+regexp.QuoteMeta(filepath.Join(home, ".codeium", "windsurf", "mcp_config.json"))+`$`, stdout)
	assert.Regexp(t, `(?m)^VS Code \(workspace\) +not found +`+regexp.QuoteMeta(filepath.Join(cwd, ".vscode", "mcp.json"))+`$`, stdout)
	// Without a file, scan reads the places that exist: an empty one lists no servers.
	code, _, stderr := sealmark(t, "scan")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "the configurations list no servers: "+filepath.Join(home, ".cursor", "mcp.json"))
}

// TestScanNPXEntryRunsContainedAfterTheFetch: the npx entry people write
// for the reference file server is fetched with npm (the registry is the
// one host besides loopback this machine reaches), then the installed
// server runs contained with no network, as a direct start would.
func TestScanNPXEntryRunsContainedAfterTheFetch(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a scan of an npx entry, fetched then run")
	}
	t.Parallel()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed: the npx entry cannot be fetched")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "claude_desktop_config.json")
	writeJSONFile(t, cfg, map[string]any{"mcpServers": map[string]any{
		"filesystem": map[string]any{"command": "npx", "args": []string{"-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "{sandbox}"}},
	}})
	// The user cache's sealmark directory, as for a user: a pinned version
	// once fetched is not fetched again.
	code, stdout, stderr := sealmark(t, "scan", "--packs", "core", "--sandbox-dir", t.TempDir(), "--json", filepath.Join(dir, "r.json"), cfg)
	require.Equal(t, report.ExitClean, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Regexp(t, `(?m)^filesystem +npx +warn +CORE-`, stdout, "its protocol findings are low")
	f, err := os.Open(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	defer f.Close()
	rep, err := report.ReadJSON(f)
	require.NoError(t, err)
	assert.Empty(t, rep.HarnessError)
	assert.Equal(t, "secure-filesystem-server", rep.Protocol.ServerName)
	assert.Equal(t, "node", rep.Server.Command)
	assert.Equal(t, []string{"{install}/dist/index.js", "{sandbox}"}, rep.Server.Args, "the installed program, started directly")
	assert.Contains(t, rep.Sandbox.Isolation, "net=netns(lo-only)", "the server itself has no network")
	assert.Equal(t, report.Standard, rep.Class)
	assert.True(t, slices.ContainsFunc(rep.Warnings, func(w string) bool {
		return strings.HasPrefix(w, "scan: npx: @modelcontextprotocol/server-filesystem@2026.8.31 fetched before the contained start") ||
			w == "scan: npx: @modelcontextprotocol/server-filesystem@2026.8.31 was already fetched (a pinned version); the registry was not asked"
	}), "%v", rep.Warnings)
}

// TestScanSignalCleansUp interrupts a scan while two servers hang in a
// tool call and a third waits its turn: exit 130, no sandbox and no
// process of either server left, the third never started, and the table
// still names all three.
func TestScanSignalCleansUp(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a scan interrupted while servers hang")
	}
	t.Parallel()
	self, err := os.Executable()
	require.NoError(t, err)
	dir, parent := t.TempDir(), t.TempDir()
	marker := "scansig-" + randomHex(t)
	servers := map[string]any{}
	for _, n := range []string{"a", "b", "c"} {
		servers[n] = map[string]any{"command": self, "args": []string{fixture.Verb, "-flaws=hang-on-call", "-name=" + marker + "-" + n}}
	}
	cfg := filepath.Join(dir, "c.json")
	writeJSONFile(t, cfg, map[string]any{"mcpServers": servers})
	cmd := exec.Command(self, "scan", "--jobs", "2", "--packs", "core", "--sandbox-dir", parent, "--call-timeout", "60s", cfg)
	cmd.Env = append(os.Environ(), cliEnv+"=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var groups []int
	deadline := time.Now().Add(30 * time.Second)
	for len(groups) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		groups = groups[:0]
		for _, n := range []string{"a", "b"} {
			if _, g := findMarked(marker + "-" + n); g != 0 {
				groups = append(groups, g)
			}
		}
	}
	require.Len(t, groups, 2, "the first two servers never started; stderr:\n%s", stderr.String())
	time.Sleep(300 * time.Millisecond) // into the hanging call
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("sealmark scan did not exit within 30s of SIGINT; stderr:\n%s", stderr.String())
	}
	assert.Equal(t, 130, cmd.ProcessState.ExitCode(), "stderr:\n%s", stderr.String())
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	assert.Empty(t, entries, "sandbox left behind")
	for _, g := range groups {
		assert.Empty(t, groupAlive(g), "processes of a server's group still alive")
	}
	pid, _ := findMarked(marker + "-c")
	assert.Zero(t, pid, "the third server started after the signal")
	assert.Regexp(t, `(?m)^c +- +ERROR`, stdout.String())
	assert.Contains(t, stdout.String(), "interrupted before it started")
}

// TestScanAndRunGiveTheSameReport: an entry scanned gives the report
// sealmark run gives for the same command, apart from timing and the
// scan's own notes.
func TestScanAndRunGiveTheSameReport(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: an entry scanned and the same command run")
	}
	t.Parallel()
	self, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.json")
	writeJSONFile(t, cfg, map[string]any{"mcpServers": map[string]any{
		"echo": map[string]any{"command": self, "args": []string{fixture.Verb, "-flaws=echo-canary"}},
	}})
	code, _, stderr := sealmark(t, "scan", "--packs", "core", "--sandbox-dir", t.TempDir(), "--call-timeout", "2s", "--json", filepath.Join(dir, "scan.json"), cfg)
	require.Equal(t, report.ExitFindings, code, stderr)
	code, _, stderr = sealmark(t, "run", "--packs", "core", "--sandbox-dir", t.TempDir(), "--call-timeout", "2s", "--json", filepath.Join(dir, "run.json"), "--", self, fixture.Verb, "-flaws=echo-canary")
	require.Equal(t, report.ExitFindings, code, stderr)

	f, err := os.Open(filepath.Join(dir, "scan.json"))
	require.NoError(t, err)
	named, err := report.ReadJSONSet(f)
	f.Close()
	require.NoError(t, err)
	scanned := named[0].Report
	var kept []string
	for _, w := range scanned.Warnings {
		if !strings.HasPrefix(w, "scan: ") {
			kept = append(kept, w)
		}
	}
	scanned.Warnings = kept
	var b strings.Builder
	require.NoError(t, report.WriteJSON(&b, scanned))
	fromScan, err := reportcmp.Timeless([]byte(b.String()))
	require.NoError(t, err)
	fromRun, err := reportcmp.Timeless([]byte(readString(t, filepath.Join(dir, "run.json"))))
	require.NoError(t, err)
	assert.Equal(t, fromRun, fromScan)
}
