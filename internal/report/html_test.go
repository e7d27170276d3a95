package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sealmark/sealmark/packs"
)

// htmlProbe is a probe of pack "core" for the HTML tests.
func htmlTestProbe(id string, v packs.Verdict, sev packs.Severity, findings ...packs.Finding) Probe {
	return Probe{ID: id, Name: strings.ToLower(id), Doc: "the rule of " + id, Verdict: v, Severity: sev, Findings: findings}
}

func htmlTestReport(probes ...Probe) *Report {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rep := &Report{Tool: Tool{Name: "sealmark", Version: "1.2.3"}, Class: Standard, Started: start, Finished: start.Add(1500 * time.Millisecond),
		Packs: []Pack{{Name: "core", Probes: probes}}}
	Finalize(rep, nil)
	return rep
}

func writeHTMLString(t *testing.T, reps []NamedReport, failOn packs.Severity) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, reps, failOn); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestHTMLServers: one row per server with the scan table's verdict at
// the fail bar (pass, warn, FAIL, ERROR for a harness error and for a run
// that tested nothing) and its worst open finding (or what else failed it); a failing or warning
// probe is open, the passing ones are collapsed under a count; equal
// reports give equal bytes.
func TestHTMLServers(t *testing.T) {
	low := packs.Finding{Severity: packs.Low, Message: "a low thing\nsecond line", Evidence: []packs.Evidence{{Observer: "response", Detail: "the low detail"}}}
	crit := packs.Finding{Severity: packs.Critical, Message: "the critical thing", CWE: "CWE-200", Evidence: []packs.Evidence{{Observer: "stdout", Detail: "the critical detail"}}}
	accepted := packs.Finding{Severity: packs.Critical, Message: "an accepted thing", Accepted: "we know"}
	harness := htmlTestReport()
	harness.HarnessError = "the server did not start\nmore"
	stale := htmlTestReport(htmlTestProbe("CORE-A", packs.Passed, packs.High))
	stale.StaleBaseline = []string{"CORE-A 0123abcd (high: gone)"}
	reps := []NamedReport{
		{"clean", htmlTestReport(htmlTestProbe("CORE-A", packs.Passed, packs.High), htmlTestProbe("CORE-N", packs.NotApplicable, packs.High))},
		{"warned", htmlTestReport(htmlTestProbe("CORE-A", packs.Passed, packs.High), htmlTestProbe("CORE-LOW", packs.Failed, packs.Low, low))},
		{"failed", htmlTestReport(htmlTestProbe("CORE-LOW", packs.Failed, packs.Low, low), htmlTestProbe("CORE-ACC", packs.Failed, packs.Critical, accepted),
			htmlTestProbe("CORE-CRIT", packs.Failed, packs.Critical, crit), htmlTestProbe("CORE-A", packs.Passed, packs.High))},
		{"broken", harness},
		{"untested", htmlTestReport(htmlTestProbe("CORE-N", packs.NotApplicable, packs.High))},
		{"stale", stale},
	}
	page := writeHTMLString(t, reps, packs.High)
	rows := []string{
		`<a href="#server-1">clean</a></td><td><span class="v pass">pass</span></td><td>-</td><td class="nowrap">1.5s</td>`,
		`<a href="#server-2">warned</a></td><td><span class="v warn">warn</span></td><td>CORE-LOW low: a low thing …</td>`,
		`<a href="#server-3">failed</a></td><td><span class="v fail">FAIL</span></td><td>CORE-CRIT critical: the critical thing</td>`,
		`<a href="#server-4">broken</a></td><td><span class="v error">ERROR</span></td><td>harness error: the server did not start …</td>`,
		`<a href="#server-5">untested</a></td><td><span class="v error">ERROR</span></td><td>nothing was tested: every selected pack was not applicable</td>`,
		`<a href="#server-6">stale</a></td><td><span class="v fail">FAIL</span></td><td>baseline: stale entry: CORE-A 0123abcd (high: gone)</td>`,
	}
	for _, row := range rows {
		if !strings.Contains(page, row) {
			t.Errorf("the table lacks the row\n  %s", row)
		}
	}
	if want := "6 servers: 1 pass, 1 warn, 2 fail, 2 error"; !strings.Contains(page, want) {
		t.Errorf("the page lacks the count %q", want)
	}
	failed := section(t, page, "server-3")
	for _, want := range []string{
		`<details class="probe fail" open>`, `<span class="v fail">FAIL</span> core-crit <code>CORE-CRIT</code> — critical: the critical thing</summary>`,
		`<details class="probe warn" open>`, `<pre>a low thing` + "\n" + `second line</pre>`, `evidence: <code>stdout</code>: <pre>the critical detail</pre>`,
		`<details class="probe accepted">`, `accepted by the baseline: we know`, "[CWE-200]",
		`<summary class="muted">1 pass, 0 not applicable</summary>`, `<details class="probe pass">`,
		"summary: 1 pass, 1 fail, 1 warn, 1 accepted",
	} {
		if !strings.Contains(failed, want) {
			t.Errorf("the failed server's section lacks %q:\n%s", want, failed)
		}
	}
	if strings.Contains(failed, `<details class="probe pass" open>`) || strings.Contains(failed, `<details class="probe accepted" open>`) {
		t.Error("a passing or accepted probe is expanded")
	}
	if broken := section(t, page, "server-4"); !strings.Contains(broken, "<pre>the server did not start\nmore</pre>") {
		t.Errorf("the harness error is not shown in full:\n%s", broken)
	}
	if again := writeHTMLString(t, reps, packs.High); again != page {
		t.Error("two writes of the same reports differ")
	}
	// The fail bar decides: at low, the warning fails.
	if atLow := writeHTMLString(t, reps[1:2], packs.Low); !strings.Contains(atLow, `<span class="v fail">FAIL</span></td><td>CORE-LOW low`) {
		t.Error("at --fail-on low a low finding does not fail the server")
	}
}

// section is the <section> of the server with the anchor id.
func section(t *testing.T, page, id string) string {
	t.Helper()
	_, rest, ok := strings.Cut(page, `<section class="server" id="`+id+`">`)
	if !ok {
		t.Fatalf("no section %s", id)
	}
	s, _, _ := strings.Cut(rest, "</section>")
	return s
}

// TestHTMLEscapesServerText: what a server wrote never becomes markup,
// whatever the field: tags, quotes and entities are escaped, terminal
// control characters and bidirectional overrides are written as escapes,
// invalid UTF-8 does not pass through, and the page still loads nothing.
func TestHTMLEscapesServerText(t *testing.T) {
	hostile := "<script>alert(1)</script>\"><img src=https://evil.test/x.png onerror=alert(2)> &amp; \x1b[31mred\u202egnp.exe\xff <a href=\"https://evil.test/\">x</a> <style>body{background:url(https://evil.test/y)}</style>"
	f := packs.Finding{Severity: packs.High, Message: hostile, CWE: hostile, Fingerprint: hostile, Inherited: hostile, Accepted: "",
		Evidence: []packs.Evidence{{Observer: hostile, Detail: hostile}}}
	pr := htmlTestProbe(hostile, packs.Failed, packs.High, f)
	pr.Name, pr.Doc, pr.CWE, pr.Reason, pr.Notes = hostile, hostile, hostile, hostile, []string{hostile}
	rep := htmlTestReport(pr, Probe{ID: hostile, Name: hostile, Verdict: packs.Verdict(hostile), Reason: hostile})
	rep.Server = Server{Command: hostile, Args: []string{hostile}, URL: hostile, Env: []EnvEntry{{Name: hostile, Value: hostile}}}
	rep.Warnings, rep.ClassReasons, rep.StaleBaseline = []string{hostile}, []string{hostile}, []string{hostile}
	rep.Protocol = Protocol{Era: hostile, ServerName: hostile}
	rep.NotCovered = []NotCovered{{Pack: hostile, Probe: hostile, Reason: hostile}}
	rep.Packs[0].Name, rep.Packs[0].Doc = hostile, hostile
	rep.Tool.Version = hostile
	broken := htmlTestReport()
	broken.HarnessError = hostile
	page := writeHTMLString(t, []NamedReport{{hostile, rep}, {hostile + "2", broken}}, packs.High)

	for _, bad := range []string{"<script", "<img", "<a href=\"https", "<style>body", "\x1b", "\u202e"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q from the server", bad)
		}
	}
	if !utf8.ValidString(page) {
		t.Error("the page is not valid UTF-8")
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;&#34;&gt;&lt;img", `\x1b[31mred\u202egnp.exe\xff`, "&amp;amp;"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks the escaped text %q", want)
		}
	}
	if n := strings.Count(page, `<details class="probe `); n != 2 {
		t.Errorf("%d probes written, want 2", n)
	}
	if !strings.Contains(page, `<details class="probe other">`) {
		t.Error("a verdict the writer does not know does not get the class other")
	}
	for _, problem := range htmlResources(page) {
		t.Error(problem)
	}
}

var (
	htmlTag       = regexp.MustCompile(`(?i)<(script|link|img|iframe|frame|object|embed|video|audio|source|track|base|form|input|svg|math)\b`)
	htmlFetchAttr = regexp.MustCompile(`(?i)<[^>]*\s(src|srcset|action|formaction|poster|data|background|ping)\s*=`)
	htmlHref      = regexp.MustCompile(`(?i)\shref\s*=\s*"([^"]*)"`)
	htmlStyle     = regexp.MustCompile(`(?is)<style>(.*?)</style>`)
)

// htmlResources lists what in page would load something: a tag that
// fetches, an attribute that does, a link off the page, a CSS url() or
// @import, a missing Content-Security-Policy.
func htmlResources(page string) []string {
	var out []string
	for _, m := range htmlTag.FindAllString(page, -1) {
		out = append(out, "the page has a "+m+"> element")
	}
	for _, m := range htmlFetchAttr.FindAllStringSubmatch(page, -1) {
		out = append(out, "the page has a "+m[1]+"= attribute")
	}
	for _, m := range htmlHref.FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") {
			out = append(out, "the page links off itself: "+m[1])
		}
	}
	styles := htmlStyle.FindAllStringSubmatch(page, -1)
	if len(styles) != 1 {
		out = append(out, "the page has not exactly one <style>")
	}
	for _, s := range styles {
		if strings.Contains(s[1], "url(") || strings.Contains(s[1], "@import") {
			out = append(out, "the style sheet loads something")
		}
	}
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';`) {
		out = append(out, "the page's Content-Security-Policy does not forbid every fetch")
	}
	return out
}
