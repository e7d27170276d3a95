package report

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/packs"
)

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text ✓", "plain text ✓"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"a\nb\rc", `a\x0ab\x0dc`},
		{"tab\there", "tab here"},
		{"bidi\u202eevil", `bidi\u202eevil`},
		{"c1\u009bx", `c1\u009bx`},
		{"bad\xffutf8", `bad\xffutf8`},
	}
	for _, tt := range tests {
		if got := clean(tt.in); got != tt.want {
			t.Errorf("clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIndentAndWord(t *testing.T) {
	if got, want := indent("one\r\ntwo\x07\n\n", "  "), "one\n  two\\x07"; got != want {
		t.Errorf("indent = %q, want %q", got, want)
	}
	words := []struct{ in, want string }{
		{"{sandbox}", "{sandbox}"},
		{"a b", `"a b"`},
		{"", `""`},
		{`it's`, `"it's"`},
		{"x\x1by", `"x\x1by"`},
	}
	for _, tt := range words {
		if got := word(tt.in); got != tt.want {
			t.Errorf("word(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWriteTextWithoutFinalize(t *testing.T) {
	rep := &Report{Class: Standard, Packs: []Pack{{Name: "core", Probes: []Probe{
		{ID: "A", Name: "a", Verdict: packs.Passed},
		{ID: "B", Name: "b", Verdict: packs.Failed, Findings: []packs.Finding{{Severity: packs.High, Message: "bad"}}},
		{ID: "C", Name: "c", Verdict: "weird"},
	}}}}
	var buf bytes.Buffer
	if err := WriteText(&buf, rep); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"sealmark — STANDARD\n",
		"  FAIL   core/b  B high: bad\n",
		"  weird  core/c  C\n",
		"summary: 1 pass, 1 fail (1 high), 0 not applicable, 0 inconclusive, 0 error, 1 other\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteTextHarnessErrorOnly(t *testing.T) {
	rep := &Report{Tool: Tool{Name: "sealmark", Version: "dev"}, Class: Standard, Server: Server{URL: "http://127.0.0.1:{port}/mcp"}, HarnessError: "connect: connection refused"}
	Finalize(rep, nil)
	var buf bytes.Buffer
	if err := WriteText(&buf, rep); err != nil {
		t.Fatal(err)
	}
	want := "sealmark dev — STANDARD\n" +
		"server:  http://127.0.0.1:{port}/mcp\n" +
		"\n" +
		"error: connect: connection refused\n" +
		"summary: 0 pass, 0 fail, 0 not applicable, 0 inconclusive, 0 error\n"
	if got := buf.String(); got != want {
		t.Errorf("text =\n%s\nwant\n%s", got, want)
	}
}

// glanceReport has a passing probe, a warning one before a failing one, an
// inconclusive one, and not-applicable probes sharing reasons across packs,
// plus a pack that did not apply.
func glanceReport() *Report {
	na := func(id, name, why string) Probe {
		return Probe{ID: id, Name: name, Verdict: packs.NotApplicable, Reason: why}
	}
	const http = "an HTTP transport check; this server speaks stdio"
	rep := &Report{Class: Standard, FailOn: "high", Packs: []Pack{
		{Name: "core", Probes: []Probe{
			{ID: "CORE-OK", Name: "ok", Verdict: packs.Passed, Notes: []string{"a passing probe's note"}},
			{ID: "CORE-WARN", Name: "warns", Verdict: packs.Failed, Findings: []packs.Finding{{Severity: packs.Low, Message: "a low one"}}},
			na("CORE-HTTP-A", "http-a", http),
			na("CORE-HTTP-B", "http-b", http),
			{ID: "CORE-SLOW", Name: "slow", Verdict: packs.Inconclusive, Reason: "timed out"},
		}},
		{Name: "effects", Probes: []Probe{
			na("EFFECTS-HTTP-C", "http-c", http),
			{ID: "EFFECTS-BAD", Name: "bad", Verdict: packs.Failed, Findings: []packs.Finding{{Severity: packs.Critical, Message: "a critical one"}}},
			na("EFFECTS-ALONE", "alone", "no URL tool"),
		}},
	}, NotCovered: []NotCovered{{Pack: "fs", Reason: "not applicable: no path tool"}}}
	for _, pk := range rep.Packs {
		for _, pr := range pk.Probes {
			if pr.Verdict == packs.NotApplicable || pr.Verdict == packs.Inconclusive {
				rep.NotCovered = append(rep.NotCovered, NotCovered{Pack: pk.Name, Probe: pr.Name, Reason: string(pr.Verdict) + ": " + pr.Reason})
			}
		}
	}
	Finalize(rep, nil)
	return rep
}

func writeTextWith(t *testing.T, rep *Report, opts TextOptions) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteTextWith(&buf, rep, opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestWriteTextGlance: by default the report lists FAIL, then WARN, then
// INCONCLUSIVE, whatever the packs' order, no passing probe, and one line
// per not-applicable reason with its count; each probe appears once.
func TestWriteTextGlance(t *testing.T) {
	out := writeTextWith(t, glanceReport(), TextOptions{})
	want := "sealmark — STANDARD\n" +
		"\n" +
		"  FAIL          effects/bad  EFFECTS-BAD critical: a critical one\n" +
		"  WARN          core/warns   CORE-WARN low: a low one\n" +
		"  INCONCLUSIVE  core/slow    CORE-SLOW: timed out\n" +
		"\n" +
		"not covered:\n" +
		"  3 probes (core/http-a, core/http-b, effects/http-c): an HTTP transport check; this server speaks stdio\n" +
		"  1 probe (effects/alone): no URL tool\n" +
		"  1 pack (fs): not applicable: no path tool\n" +
		"summary: 1 pass, 1 fail (1 critical), 1 warn (1 low), 4 not applicable, 1 inconclusive, 0 error, 1 pack not applicable\n"
	if out != want {
		t.Errorf("text =\n%s\nwant\n%s", out, want)
	}
}

// TestWriteTextVerbose: --verbose lists every probe pack by pack, passing
// ones with their notes, and a not-applicable probe only in its pack's
// table, not again under not covered.
func TestWriteTextVerbose(t *testing.T) {
	out := writeTextWith(t, glanceReport(), TextOptions{Verbose: true})
	for _, want := range []string{
		"\ncore\n  PASS          ok                    CORE-OK\n",
		"note: a passing probe's note\n",
		"  N/A           http-a                CORE-HTTP-A: an HTTP transport check; this server speaks stdio\n",
		"\nnot covered:\n  1 pack (fs): not applicable: no path tool\nsummary: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verbose text lacks %q:\n%s", want, out)
		}
	}
	for _, probe := range []string{"http-a", "http-b", "http-c", "alone", "slow"} {
		if n := strings.Count(out, probe); n != 1 {
			t.Errorf("%s appears %d times, want once:\n%s", probe, n, out)
		}
	}
	glance := writeTextWith(t, glanceReport(), TextOptions{})
	for _, absent := range []string{"PASS", "CORE-OK", "a passing probe's note"} {
		if strings.Contains(glance, absent) {
			t.Errorf("the default text shows %q, a passing probe's detail:\n%s", absent, glance)
		}
	}
}

// TestWriteTextColor: colour marks the labels, severities and failing
// counts only when asked; a server's own escape stays escaped either way.
func TestWriteTextColor(t *testing.T) {
	rep := glanceReport()
	rep.Packs[1].Probes[1].Findings[0].Message = "evil \x1b[2J text"
	plain := writeTextWith(t, rep, TextOptions{})
	if strings.Contains(plain, "\x1b") {
		t.Errorf("plain text holds an escape:\n%q", plain)
	}
	color := writeTextWith(t, rep, TextOptions{Color: true})
	for _, want := range []string{
		sgrBoldRed + "FAIL" + sgrReset + "          effects/bad",
		sgrYellow + "WARN" + sgrReset,
		sgrMagenta + "INCONCLUSIVE" + sgrReset,
		"EFFECTS-BAD " + sgrBoldRed + "critical" + sgrReset + ": evil \\x1b[2J text",
		"CORE-WARN " + sgrCyan + "low" + sgrReset + ": a low one",
		"summary: 1 pass, " + sgrBoldRed + "1 fail" + sgrReset,
	} {
		if !strings.Contains(color, want) {
			t.Errorf("coloured text lacks %q:\n%q", want, color)
		}
	}
	if strings.Contains(color, "\x1b[2J") {
		t.Errorf("the server's escape reached the terminal:\n%q", color)
	}
	// Without the escapes, the coloured text is the plain one.
	if stripped := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(color, ""); stripped != plain {
		t.Errorf("coloured text differs from the plain one beyond the colours:\n%s\nplain:\n%s", stripped, plain)
	}
}

// TestWriteTextRedactedInEveryView: the glance, verbose and coloured views
// of a finalized report whose every string carries every secret show the
// masks and none of the secrets.
func TestWriteTextRedactedInEveryView(t *testing.T) {
	payload := fmt.Sprintf("canary %s env %s header %s db %s end", testCanary, testEnvSecret, testHeaderVal, testDBPass)
	rep := &Report{}
	fillStrings(reflect.ValueOf(rep), "rep", payload)
	rep.Packs[0].Probes[0].Verdict = packs.Failed
	rep.Packs[0].Probes[1].Verdict = packs.Errored
	rep.Packs[1].Probes[0].Verdict = packs.NotApplicable
	rep.Packs[1].Probes[1].Verdict = packs.Inconclusive
	rep.FailOn = "info"
	r := redact.New()
	r.Secret(testCanary, redact.MaskCanary)
	r.Secret(testEnvSecret, redact.MaskRedacted)
	r.Secret(testHeaderVal, redact.MaskRedacted)
	r.Secret(testDBPass, redact.MaskPassword)
	Finalize(rep, r)
	for _, opts := range []TextOptions{{}, {Verbose: true}, {Color: true}, {Verbose: true, Color: true}} {
		out := writeTextWith(t, rep, opts)
		for _, sec := range []string{testCanary, testEnvSecret, testHeaderVal, testDBPass} {
			if strings.Contains(out, sec) {
				t.Errorf("%+v: text holds secret %q", opts, sec)
			}
		}
		for _, mask := range []string{redact.MaskCanary, redact.MaskRedacted, redact.MaskPassword} {
			if !strings.Contains(out, mask) {
				t.Errorf("%+v: text lacks mask %q", opts, mask)
			}
		}
	}
}
