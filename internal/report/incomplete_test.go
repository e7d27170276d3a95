package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/packs"
)

// incompleteReport has a core pack that passed and an fs pack whose probes
// ended inconclusive or not applicable: fs gave no verdict of its own.
// With complete, fs's first probe passes instead (the pack is judged).
func incompleteReport(complete bool) *Report {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	first := Probe{ID: "FS-PREFIX", Name: "prefix", Verdict: packs.Inconclusive, Severity: packs.Critical, Reason: "control failed: ok.txt unreadable"}
	if complete {
		first.Verdict, first.Reason = packs.Passed, ""
	}
	rep := &Report{Tool: Tool{Name: "sealmark", Version: "1.2.3"}, Class: Standard, Started: start, Finished: start.Add(time.Second),
		Packs: []Pack{
			{Name: "core", Probes: []Probe{{ID: "CORE-INIT", Name: "initialize", Verdict: packs.Passed, Severity: packs.High}}},
			{Name: "fs", Probes: []Probe{
				first,
				{ID: "FS-LINK", Name: "link", Verdict: packs.Inconclusive, Severity: packs.Low, Reason: "control failed: link-file missing"},
				{ID: "FS-WRITE", Name: "write", Verdict: packs.NotApplicable, Severity: packs.High, Reason: "no write tool"},
			}},
		}}
	Finalize(rep, nil)
	return rep
}

// TestIncompleteText: the fs pack's line says INCOMPLETE, the summary
// counts it and says why the run is no pass; a complete pack says none of it.
func TestIncompleteText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, incompleteReport(false)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"\nfs  INCOMPLETE: every probe inconclusive or not applicable\n",
		"1 pack INCOMPLETE",
		"\nincomplete: a check at or above fail_on, or a whole pack, ended inconclusive",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\ncore  INCOMPLETE") {
		t.Errorf("the judged core pack reads INCOMPLETE:\n%s", out)
	}
	b.Reset()
	if err := WriteText(&b, incompleteReport(true)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "INCOMPLETE") || strings.Contains(b.String(), "\nincomplete:") {
		t.Errorf("a complete pack reads INCOMPLETE:\n%s", b.String())
	}
}

// TestIncompleteJSON: the pack carries incomplete: true and the summary
// counts it; a complete pack carries neither.
func TestIncompleteJSON(t *testing.T) {
	for _, complete := range []bool{false, true} {
		var b bytes.Buffer
		if err := WriteJSON(&b, incompleteReport(complete)); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Packs []struct {
				Name       string `json:"name"`
				Incomplete bool   `json:"incomplete"`
			} `json:"packs"`
			Summary struct {
				PacksIncomplete int `json:"packsIncomplete"`
			} `json:"summary"`
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		want := !complete
		if doc.Packs[0].Incomplete || doc.Packs[1].Incomplete != want {
			t.Errorf("complete=%v: packs %+v, want only fs incomplete=%v", complete, doc.Packs, want)
		}
		if n := doc.Summary.PacksIncomplete; (n == 1) != want {
			t.Errorf("complete=%v: summary.packsIncomplete = %d", complete, n)
		}
		back, err := ReadJSON(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if back.Packs[1].Incomplete != want {
			t.Errorf("complete=%v: read back incomplete=%v", complete, back.Packs[1].Incomplete)
		}
	}
}

// TestIncompleteJUnit: every inconclusive probe of an INCOMPLETE pack is
// an error, not a skip; in a complete pack an inconclusive probe below
// the fail bar stays a skip, and --allow-inconclusive makes them skips.
func TestIncompleteJUnit(t *testing.T) {
	doc, _ := readJUnit(t, incompleteReport(false))
	fs := doc.Suites[1]
	if fs.Errors != 2 || fs.Skipped != 1 {
		t.Errorf("fs suite errors=%d skipped=%d, want 2 errors (inconclusive) and 1 skip (not applicable)", fs.Errors, fs.Skipped)
	}
	if e := fs.Cases[0].Error; e == nil || e.Message != "FS-PREFIX inconclusive (pack fs INCOMPLETE): control failed: ok.txt unreadable" || e.Type != "inconclusive" {
		t.Errorf("inconclusive case %+v", fs.Cases[0])
	}

	doc, _ = readJUnit(t, incompleteReport(true))
	if fs := doc.Suites[1]; fs.Errors != 0 || fs.Cases[1].Skipped == nil {
		t.Errorf("complete pack: errors=%d link case %+v, want a low inconclusive probe skipped", fs.Errors, fs.Cases[1])
	}

	allowed := incompleteReport(false)
	allowed.AllowInconclusive = true
	doc, _ = readJUnit(t, allowed)
	if fs := doc.Suites[1]; fs.Errors != 0 || fs.Skipped != 3 {
		t.Errorf("allowed: errors=%d skipped=%d, want 0 and 3", fs.Errors, fs.Skipped)
	}
}

// TestIncompleteSARIF: an INCOMPLETE pack and its untested probes are
// error-level tool execution notifications (code scanning lists them on
// the tool's status page); a complete pack gives none.
func TestIncompleteSARIF(t *testing.T) {
	notes := func(rep *Report) []sarifNotification {
		var b bytes.Buffer
		if err := WriteSARIF(&b, rep, SARIFOptions{}); err != nil {
			t.Fatal(err)
		}
		var log sarifLog
		if err := json.Unmarshal(b.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		return log.Runs[0].Invocations[0].ToolExecutionNotifications
	}
	got := notes(incompleteReport(false))
	var texts []string
	for _, n := range got {
		if n.Level != "error" {
			t.Errorf("notification %q level %s, want error", n.Message.Text, n.Level)
		}
		texts = append(texts, n.Message.Text)
	}
	want := []string{
		"pack fs INCOMPLETE: every probe was inconclusive or not applicable, so nothing in it was judged",
		"FS-PREFIX: inconclusive, so untested: control failed: ok.txt unreadable",
		"FS-LINK: inconclusive, so untested: control failed: link-file missing",
	}
	if strings.Join(texts, "\n") != strings.Join(want, "\n") {
		t.Errorf("notifications\n%s\nwant\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
	if got := notes(incompleteReport(true)); len(got) != 0 {
		t.Errorf("complete pack: notifications %+v, want none", got)
	}
	allowed := incompleteReport(false)
	allowed.AllowInconclusive = true
	if got := notes(allowed); len(got) != 1 || got[0].Level != "warning" {
		t.Errorf("allowed: notifications %+v, want the pack's as one warning", got)
	}
}

// TestIncompleteHTML: the server's row reads INCOMPLETE with the untested
// check, the pack's heading says INCOMPLETE; a complete run reads pass.
func TestIncompleteHTML(t *testing.T) {
	page := writeHTMLString(t, []NamedReport{{"notes", incompleteReport(false)}, {"done", incompleteReport(true)}}, packs.High)
	for _, want := range []string{
		`<a href="#server-1">notes</a></td><td><span class="v incomplete">INCOMPLETE</span></td><td>untested: pack fs INCOMPLETE: every probe inconclusive or not applicable</td>`,
		`<a href="#server-2">done</a></td><td><span class="v pass">pass</span></td>`,
		`<h3>fs <strong class="error">INCOMPLETE</strong>`,
		"2 servers: 1 pass, 0 warn, 0 fail, 1 incomplete, 0 error",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if n := strings.Count(page, `<strong class="error">INCOMPLETE</strong>`); n != 1 {
		t.Errorf("%d INCOMPLETE headings, want 1 (the complete fs pack has none)", n)
	}
}

// TestIncompleteRedacted: the reasons the new lines carry go through the
// report's redaction: a secret in an inconclusive reason shows masked in
// text, JUnit, SARIF and HTML.
func TestIncompleteRedacted(t *testing.T) {
	rep := incompleteReport(false)
	rep.Packs[1].Probes[0].Reason = "control failed: token " + testEnvSecret + " refused"
	r := redact.New()
	r.Secret(testEnvSecret, redact.MaskRedacted)
	Finalize(rep, r)
	var text, sarif, page bytes.Buffer
	if err := WriteText(&text, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteSARIF(&sarif, rep, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&page, []NamedReport{{Name: "s", Report: rep}}, packs.High); err != nil {
		t.Fatal(err)
	}
	_, junit := readJUnit(t, rep)
	for name, out := range map[string][]byte{"text": text.Bytes(), "SARIF": sarif.Bytes(), "JUnit": junit, "HTML": page.Bytes()} {
		if bytes.Contains(out, []byte(testEnvSecret)) {
			t.Errorf("%s holds the secret", name)
		}
	}
	if !bytes.Contains(sarif.Bytes(), []byte("FS-PREFIX: inconclusive, so untested: control failed: token "+redact.MaskRedacted)) {
		t.Errorf("SARIF lacks the masked reason:\n%s", sarif.String())
	}
}

// TestRunIncomplete: a run that tested something and left a check
// untested is incomplete; one that failed, broke or tested nothing is not.
func TestRunIncomplete(t *testing.T) {
	if !RunIncomplete(incompleteReport(false), packs.High) {
		t.Error("an INCOMPLETE pack beside a passing one: want incomplete")
	}
	if RunIncomplete(incompleteReport(true), packs.High) {
		t.Error("a complete run: want not incomplete")
	}
	broken := incompleteReport(false)
	broken.HarnessError = "no sandbox"
	if RunIncomplete(broken, packs.High) {
		t.Error("a harness error: want ERROR, not incomplete")
	}
	nothing := &Report{Packs: []Pack{{Name: "fs", Probes: []Probe{{ID: "X", Verdict: packs.Inconclusive, Severity: packs.Critical}}}}}
	if RunIncomplete(nothing, packs.High) {
		t.Error("nothing tested: want not incomplete (nothing was tested)")
	}
	if got := UntestedChecks(incompleteReport(false), packs.High); len(got) != 3 {
		t.Errorf("UntestedChecks = %q, want the pack and its two inconclusive probes", got)
	}
}
