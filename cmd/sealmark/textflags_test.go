package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/fixture"
)

// sgr matches the colour escapes the text report writes.
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// screen is how many lines a person sees at once.
const screen = 40

// aboveSummary is the report's lines before its summary line.
func aboveSummary(t *testing.T, out string) []string {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(sgr.ReplaceAllString(l, ""), "summary: ") {
			return lines[:i]
		}
	}
	t.Fatalf("no summary line:\n%s", out)
	return nil
}

// withoutTimes drops the started line, the one line two runs differ in.
func withoutTimes(out string) string {
	return regexp.MustCompile(`(?m)^started: .*\n`).ReplaceAllString(out, "")
}

// TestExampleReportFitsAScreen runs the bundled example as a person would:
// its report shows the header, the failing probe and one line per reason
// a probe or pack did not apply above the summary, within one screen;
// plain when the output is not a terminal, coloured with --color=always,
// and every passing probe with --verbose.
func TestExampleReportFitsAScreen(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the bundled example run as a person would")
	}
	t.Setenv("NO_COLOR", "")
	code, plain, errOut := sealmark(t, "run", "--sandbox-dir", t.TempDir(), "--example")
	require.Equal(t, 1, code, "the example's critical finding fails the run:\n%s%s", plain, errOut)
	above := aboveSummary(t, plain)
	assert.LessOrEqual(t, len(above), screen, "the report above the summary is longer than a screen:\n%s", plain)
	assert.NotContains(t, plain, "\x1b", "no colour when the output is not a terminal")
	assert.Regexp(t, `(?m)^  FAIL  core/secret-echo  CORE-SECRET-ECHO critical: `, plain)
	assert.NotRegexp(t, `(?m)^  PASS `, plain, "passing probes only with --verbose")
	assert.Regexp(t, `(?m)^  11 probes: an HTTP transport check; this server speaks stdio$`, plain)
	assert.Equal(t, 1, strings.Count(plain, "an HTTP transport check"), "one line per not-applicable reason, never twice:\n%s", plain)
	assert.Regexp(t, `(?m)^  1 pack \(fs\): not applicable: no tool takes a path$`, plain)
	readme, err := os.ReadFile(readmeFile)
	require.NoError(t, err)
	sample := regexp.MustCompile("(?s)\n```\n(  FAIL  core/secret-echo .*?\nsummary: [^\n]*\n)```").FindSubmatch(readme)
	require.NotNil(t, sample, "the README has no sample of the example's report")
	assert.Equal(t, plain[strings.Index(plain, "  FAIL  core/secret-echo "):], string(sample[1]), "the README's sample is the example's report")

	code, color, _ := sealmark(t, "run", "--sandbox-dir", t.TempDir(), "--color=always", "--example")
	require.Equal(t, 1, code)
	assert.Contains(t, color, "  \x1b[1;31mFAIL\x1b[0m  core/secret-echo  CORE-SECRET-ECHO \x1b[1;31mcritical\x1b[0m: ")
	assert.Contains(t, color, "summary: 36 pass, \x1b[1;31m1 fail\x1b[0m (\x1b[1;31m2 critical\x1b[0m)")
	assert.Equal(t, withoutTimes(plain), withoutTimes(sgr.ReplaceAllString(color, "")), "colour changes nothing else")

	t.Setenv("NO_COLOR", "1")
	code, never, _ := sealmark(t, "run", "--sandbox-dir", t.TempDir(), "--color=never", "--verbose", "--example")
	require.Equal(t, 1, code)
	assert.NotContains(t, never, "\x1b")
	assert.Regexp(t, `(?m)^  PASS  initialize +CORE-INITIALIZE$`, never, "--verbose lists passing probes")
	assert.Regexp(t, `(?m)^  N/A   http-cors +CORE-HTTP-CORS: an HTTP transport check; this server speaks stdio$`, never)
	assert.Equal(t, 11, strings.Count(never, "an HTTP transport check"), "each not-applicable probe once, in its pack's table")
	assert.Greater(t, len(aboveSummary(t, never)), screen)
}

// TestColorFlag: --color takes auto, always or never; always colours any
// output, never none; auto colours only a terminal (a buffer, a pipe or a
// file are none), and not when NO_COLOR has a value or TERM is dumb.
func TestColorFlag(t *testing.T) {
	code, _, errOut := sealmark(t, "run", "--color=sometimes", "--example")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `invalid value "sometimes" for flag -color: want auto, always or never`)

	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	for _, out := range []any{&bytes.Buffer{}, w} {
		wr := out.(interface{ Write([]byte) (int, error) })
		assert.True(t, useColor("always", wr, []string{"NO_COLOR=1"}), "an explicit --color=always wins over NO_COLOR")
		assert.False(t, useColor("never", wr, nil))
		assert.False(t, useColor("auto", wr, nil), "not a terminal: %T", out)
	}
	assert.Equal(t, "b", envValue([]string{"NO_COLOR=a", "NO_COLORX=c", "NO_COLOR=b"}, "NO_COLOR"))
	assert.Equal(t, "", envValue([]string{"NO_COLOR="}, "NO_COLOR"))
}

// TestScanVerboseAndColor: scan's table is plain when not a terminal and
// coloured with --color=always; --verbose writes each server's text report,
// passing probes listed, before the table.
func TestScanVerboseAndColor(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: scans with --verbose and --color")
	}
	t.Setenv("NO_COLOR", "")
	self, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcp.json")
	writeJSONFile(t, cfg, map[string]any{"mcpServers": map[string]any{
		"flawed": map[string]any{"command": self, "args": []string{fixture.Verb, "-flaws=echo-canary"}},
	}})
	scanArgs := func(extra ...string) []string {
		return append(append([]string{"scan", "--quiet", "--packs", "core", "--call-timeout", "2s", "--sandbox-dir", t.TempDir(), "--cache-dir", t.TempDir()}, extra...), cfg)
	}
	code, plain, errOut := sealmark(t, scanArgs()...)
	require.Equal(t, 1, code, errOut)
	assert.NotContains(t, plain, "\x1b")
	assert.Regexp(t, `(?m)^flawed +direct +FAIL +CORE-SECRET-ECHO critical `, plain)
	assert.NotContains(t, plain, "report: flawed", "each server's report only with --verbose")

	code, color, _ := sealmark(t, scanArgs("--color=always")...)
	require.Equal(t, 1, code)
	assert.Regexp(t, "(?m)^flawed +direct +\x1b\\[1;31mFAIL\x1b\\[0m +CORE-SECRET-ECHO critical ", color)
	assert.Contains(t, color, "CORE-SECRET-ECHO \x1b[1;31mcritical\x1b[0m: ")

	code, verbose, _ := sealmark(t, scanArgs("--verbose")...)
	require.Equal(t, 1, code)
	assert.NotContains(t, verbose, "\x1b")
	perServer, table, ok := strings.Cut(verbose, "\nSERVER ")
	require.True(t, ok, verbose)
	assert.True(t, strings.HasPrefix(perServer, "report: flawed\nsealmark "), perServer)
	assert.Regexp(t, `(?m)^  PASS +initialize +CORE-INITIALIZE$`, perServer)
	assert.Regexp(t, `(?m)^  FAIL +secret-echo +CORE-SECRET-ECHO critical: `, perServer)
	assert.Contains(t, table, "scan: 1 server: 0 pass, 0 warn, 1 fail, 0 error")
}
