package scan

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// summaryReports are a passing server and one whose name and finding
// carry a terminal escape.
func summaryReports() []Named {
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	pass := &report.Report{Started: start, Finished: start.Add(time.Second), Warnings: []string{"scan: x.json: servers.ok, launcher direct"},
		Packs: []report.Pack{{Name: "core", Probes: []report.Probe{{ID: "CORE-OK", Name: "ok", Verdict: packs.Passed}}}}}
	fail := &report.Report{Started: start, Finished: start.Add(2 * time.Second), Warnings: []string{"scan: x.json: servers.bad, launcher direct"},
		Packs: []report.Pack{{Name: "core", Probes: []report.Probe{{ID: "CORE-SECRET-ECHO", Name: "secret-echo", Verdict: packs.Failed,
			Findings: []packs.Finding{{Severity: packs.Critical, Message: "echoed \x1b[2J here\nsecond line"}}}}}}}
	report.Finalize(pass, nil)
	report.Finalize(fail, nil)
	return []Named{{Name: "ok", Report: pass}, {Name: "bad\x1b]0;title\x07", Report: fail}}
}

// TestWriteSummaryPlainAndColoured: the table holds no escape of its own
// or of a server's (names and messages are cleaned); with colour, the
// verdicts, severities and failing counts are coloured and nothing else
// changes.
func TestWriteSummaryPlainAndColoured(t *testing.T) {
	var plain, color bytes.Buffer
	if err := WriteSummary(&plain, summaryReports(), packs.High); err != nil {
		t.Fatal(err)
	}
	want := "SERVER               LAUNCHER  VERDICT  WORST FINDING              TIME\n" +
		"ok                   direct    pass     -                          1s\n" +
		`bad\x1b]0;title\x07  direct    FAIL     CORE-SECRET-ECHO critical  2s` + "\n" +
		"\n" +
		`bad\x1b]0;title\x07:` + "\n" +
		`  CORE-SECRET-ECHO critical: echoed \x1b[2J here …` + "\n" +
		"\n" +
		"scan: 2 servers: 1 pass, 0 warn, 1 fail, 0 error\n"
	if plain.String() != want {
		t.Errorf("table =\n%s\nwant\n%s", plain.String(), want)
	}
	if err := WriteSummaryWith(&color, summaryReports(), packs.High, report.TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	out := color.String()
	for _, s := range []string{
		"\x1b[32mpass\x1b[0m     -",
		"\x1b[1;31mFAIL\x1b[0m     CORE-SECRET-ECHO critical",
		"  CORE-SECRET-ECHO \x1b[1;31mcritical\x1b[0m: echoed",
		"1 pass, 0 warn, \x1b[1;31m1 fail\x1b[0m, 0 error",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("coloured table lacks %q:\n%q", s, out)
		}
	}
	if stripped := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(out, ""); stripped != plain.String() {
		t.Errorf("colour changed more than colours:\n%s", stripped)
	}
}
