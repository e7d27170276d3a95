package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// TestScanHTML: scan --html over a clean fixture, one that echoes the
// canary (a critical finding whose evidence held it) and one that cannot
// start writes one page that loads nothing from anywhere; rendered by
// headless Chromium and printed (printing expands every probe), its visible
// text names every server, its verdict and every finding, shows the masks
// where the secrets were, and holds no secret.
func TestScanHTML(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: scan --html, its page rendered in Chromium and printed")
	}
	t.Parallel()
	dir := t.TempDir()
	self, err := os.Executable()
	require.NoError(t, err)
	envSecret := "ghp_" + randomHex(t)
	entry := func(flags ...string) map[string]any {
		return map[string]any{"command": self, "args": append([]string{fixture.Verb}, flags...), "env": map[string]string{"UPSTREAM_PAT": envSecret}}
	}
	cfg := filepath.Join(dir, "claude_desktop_config.json")
	writeJSONFile(t, cfg, map[string]any{"mcpServers": map[string]any{
		"clean-one":   entry("-name=clean"),
		"flawed-one":  entry("-flaws=echo-canary,canary-in-log,canary-in-description"),
		"nostart-one": map[string]any{"command": filepath.Join(dir, "no-such-server")},
	}})
	page := filepath.Join(dir, "report.html")
	code, stdout, stderr := sealmark(t, "scan", "--packs", "core", "--sandbox-dir", t.TempDir(), "--call-timeout", "2s",
		"--cache-dir", t.TempDir(), "--quiet", "--json", filepath.Join(dir, "scan.json"), "--html", page, cfg)
	require.Equal(t, report.ExitHarness, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	raw := readString(t, page)

	// What the page holds, before any browser: every server, the finding
	// with its evidence masked, no secret, nothing loaded from outside.
	for _, want := range []string{"clean-one", "flawed-one", "nostart-one", "CORE-SECRET-ECHO critical", "&lt;canary&gt;", "no-such-server"} {
		assert.Contains(t, raw, want)
	}
	for _, secret := range []string{envSecret, "sm-canary-"} {
		assert.NotContains(t, raw, secret)
	}
	assertSelfContained(t, raw)
	// The same verdicts as the table on stdout.
	for _, row := range []string{`clean-one +direct +pass `, `flawed-one +direct +FAIL +CORE-SECRET-ECHO critical `, `nostart-one +direct +ERROR `} {
		assert.Regexp(t, `(?m)^`+row, stdout)
	}

	text := renderedText(t, page)
	shows := func(want string) bool { return strings.Contains(flatten(text), flatten(want)) }
	for _, want := range []string{
		"Sealmark: 3 servers", "3 servers: 1 pass, 0 warn, 1 fail, 1 error",
		"clean-one", "flawed-one", "nostart-one", "FAIL", "ERROR", "pass",
		"CORE-SECRET-ECHO critical", "harness error", "<canary>", "UPSTREAM_PAT=<redacted>",
	} {
		assert.True(t, shows(want), "the rendered page does not show %q", want)
	}
	// Every probe of the flawed server, passing ones included (collapsed
	// on screen, expanded in print).
	rep := readScan(t, filepath.Join(dir, "scan.json"), "flawed-one")
	require.NotEmpty(t, rep.Packs)
	for _, pr := range rep.Packs[0].Probes {
		assert.True(t, shows(pr.ID), "the rendered page does not show probe %s", pr.ID)
		for _, f := range pr.Findings {
			assert.True(t, shows(f.Message), "the rendered page does not show the finding %q of %s", f.Message, pr.ID)
			for _, e := range f.Evidence {
				assert.True(t, shows(e.Detail), "the rendered page does not show the evidence %q of %s", e.Detail, pr.ID)
			}
		}
	}
	for _, secret := range []string{envSecret, "sm-canary-"} {
		assert.False(t, shows(secret), "the rendered page shows the secret %q", secret)
	}
}

// flatten drops the whitespace and hyphens of s: the printed page wraps
// lines where it likes, and pdftotext joins a word broken at a hyphen
// without it.
func flatten(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), ""), "-", "")
}

// TestScanHTMLDirectoryMissing: a --html path in no directory is a usage
// error found before any server starts.
func TestScanHTMLDirectoryMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.json")
	writeJSONFile(t, cfg, map[string]any{"mcpServers": map[string]any{"x": map[string]any{"command": filepath.Join(dir, "never-run")}}})
	code, _, stderr := sealmark(t, "scan", "--cache-dir", dir, "--html", filepath.Join(dir, "no", "report.html"), cfg)
	assert.Equal(t, report.ExitUsage, code, stderr)
	assert.Contains(t, stderr, "--html: the directory")
	code, _, stderr = sealmark(t, "scan", "--cache-dir", dir, "--html", dir, cfg)
	assert.Equal(t, report.ExitUsage, code, stderr)
	assert.Contains(t, stderr, "is a directory")
}

// TestMergeHTML: merge --html writes the page of the merged reports (a CI
// matrix's, one per job), each server's verdict at merge's --fail-on.
func TestMergeHTML(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	write := func(name string, pr report.Probe) string {
		rep := &report.Report{Tool: report.Tool{Name: "sealmark", Version: "dev"}, Class: report.Standard, Started: start, Finished: start.Add(time.Second),
			Packs: []report.Pack{{Name: "core", Probes: []report.Probe{pr}}}}
		report.Finalize(rep, nil)
		path := filepath.Join(dir, name+".json")
		f, err := os.Create(path)
		require.NoError(t, err)
		require.NoError(t, report.WriteJSON(f, rep))
		require.NoError(t, f.Close())
		return path
	}
	low := write("alpha", report.Probe{ID: "CORE-X", Name: "x", Verdict: packs.Failed, Severity: packs.Low,
		Findings: []packs.Finding{{Severity: packs.Low, Message: "a low thing"}}})
	ok := write("beta", report.Probe{ID: "CORE-Y", Name: "y", Verdict: packs.Passed, Severity: packs.High})
	page := filepath.Join(dir, "merged.html")
	for failOn, want := range map[string]string{"high": `<span class="v warn">warn</span>`, "low": `<span class="v fail">FAIL</span>`} {
		code, stdout, stderr := sealmark(t, "merge", "--fail-on", failOn, "--html", page, low, ok)
		require.Contains(t, []int{report.ExitClean, report.ExitFindings}, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
		raw := readString(t, page)
		assert.Contains(t, raw, `<a href="#server-1">alpha</a></td><td>`+want+`</td><td>CORE-X low: a low thing</td>`, "--fail-on %s", failOn)
		assert.Contains(t, raw, `<a href="#server-2">beta</a></td><td><span class="v pass">pass</span></td><td>-</td>`)
		assertSelfContained(t, raw)
	}
	code, _, stderr := sealmark(t, "merge", "--html", filepath.Join(dir, "no", "m.html"), low)
	assert.Equal(t, report.ExitUsage, code)
	assert.Contains(t, stderr, `sealmark merge: flag --html: the directory`)
}

func readScan(t *testing.T, path, name string) *report.Report {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	named, err := report.ReadJSONSet(f)
	require.NoError(t, err)
	for _, n := range named {
		if n.Name == name {
			return n.Report
		}
	}
	t.Fatalf("no report %q in %s", name, path)
	return nil
}

// assertSelfContained checks that the page names no resource: no element
// that fetches (script, stylesheet link, image, frame, ...), no attribute
// that does, no CSS url() or @import, every link to an anchor of the page
// itself, and a Content-Security-Policy that forbids any fetch.
func assertSelfContained(t *testing.T, page string) {
	t.Helper()
	assert.NotRegexp(t, `(?i)<(script|link|img|iframe|frame|object|embed|video|audio|source|track|base|form|svg)\b`, page)
	assert.NotRegexp(t, `(?i)<[^>]*\s(src|srcset|action|formaction|poster|data|background|ping)\s*=`, page)
	for _, m := range regexp.MustCompile(`(?i)\shref\s*=\s*"([^"]*)"`).FindAllStringSubmatch(page, -1) {
		assert.True(t, strings.HasPrefix(m[1], "#"), "link %q leaves the page", m[1])
	}
	styles := regexp.MustCompile(`(?is)<style>(.*?)</style>`).FindAllStringSubmatch(page, -1)
	require.Len(t, styles, 1)
	assert.NotContains(t, styles[0][1], "url(")
	assert.NotContains(t, styles[0][1], "@import")
	assert.Contains(t, page, `content="default-src 'none'; style-src 'unsafe-inline';`, "the page's CSP forbids every fetch")
}

// renderedText prints the page with headless Chromium and returns the
// PDF's text (pdftotext): what a person sees, every probe expanded by the
// page's print style. Chromium gets a file:// URL, a profile of its own,
// no background services and a resolver that resolves nothing, so it
// contacts no network. It runs in a PID namespace of its own (unshare):
// its crash handler daemonizes, and an orphan would otherwise be adopted
// by this test process, the harness, where the process observer of a
// run under way in a parallel test would count it as the server's; in the
// namespace its init adopts it, and every process of it dies with that
// init. The test skips when chromium, pdftotext or unshare is missing
// (.ci/run installs the first two; unshare is util-linux's).
func renderedText(t *testing.T, page string) string {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (Debian: apt-get install chromium); .ci/run installs it")
	}
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext is not installed (Debian: apt-get install poppler-utils); .ci/run installs it")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare (util-linux) is not installed: chromium would leave its crash handler to this test process")
	}
	ns := []string{"--pid", "--fork", "--kill-child"}
	if os.Geteuid() != 0 {
		ns = append([]string{"--user", "--map-root-user"}, ns...)
	}
	dir := t.TempDir()
	pdf := filepath.Join(dir, "report.pdf")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(ns, "--", chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
		"--disable-extensions", "--no-pings", "--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--no-pdf-header-footer", "--print-to-pdf="+pdf, "file://"+page)
	cmd := exec.CommandContext(ctx, unshare, args...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_CACHE_HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil && strings.HasPrefix(string(out), "unshare: ") {
		t.Skipf("no PID namespace for chromium (%v): %s", err, out)
	}
	require.NoError(t, err, "chromium:\n%s", out)
	txt, err := exec.CommandContext(ctx, pdftotext, "-enc", "UTF-8", pdf, "-").Output()
	require.NoError(t, err, "pdftotext")
	require.NotEmpty(t, strings.TrimSpace(string(txt)), "the printed page has no text")
	return string(txt)
}
