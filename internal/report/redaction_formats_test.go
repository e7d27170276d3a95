package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"html"
	"reflect"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/packs"
)

// TestRedactionSARIFAndJUnit is TestRedactionEndToEnd for the code scanning
// and CI formats and the HTML page: a report whose every string carries
// every secret, finalized, shows none of them in SARIF, JUnit or HTML,
// whatever verdict carried the text there.
func TestRedactionSARIFAndJUnit(t *testing.T) {
	payload := fmt.Sprintf("canary %s env %s header %s db %s end", testCanary, testEnvSecret, testHeaderVal, testDBPass)
	rep := &Report{}
	if set := fillStrings(reflect.ValueOf(rep), "rep", payload); len(set) < 30 {
		t.Fatalf("filled only %d string fields: %v", len(set), set)
	}
	rep.Sandbox.Kept = true
	rep.Server.URL = redact.URL("https://admin:"+testURLPass+"@mcp.example.test/mcp?") + payload
	// Every verdict that takes text into a format: findings and reasons of
	// a failing probe, the reason of each other verdict.
	rep.Packs[0].Probes[0].Verdict = packs.Failed
	rep.Packs[0].Probes[1].Verdict = packs.Errored
	rep.Packs[1].Probes[0].Verdict = packs.NotApplicable
	rep.Packs[1].Probes[1].Verdict = packs.Inconclusive
	// Findings of the other probes are not shown; let them be one of each.
	rep.Packs[0].Probes[1].Findings = nil
	// One finding accepted by the baseline (its justification shown), one
	// not, so the probe still fails.
	rep.Packs[0].Probes[0].Findings[1].Accepted = ""
	rep.FailOn = "info" // the findings are info: at the bar, so the probe fails the run

	r := redact.New()
	r.Secret(testCanary, redact.MaskCanary)
	r.Secret(testEnvSecret, redact.MaskRedacted)
	r.Secret(testHeaderVal, redact.MaskRedacted)
	r.Secret(testDBPass, redact.MaskPassword)
	Finalize(rep, r)

	var sarif bytes.Buffer
	if err := WriteSARIF(&sarif, rep, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	_, junit := readJUnit(t, rep)
	var page bytes.Buffer
	if err := WriteHTML(&page, []NamedReport{{Name: "server", Report: rep}}, packs.Info); err != nil {
		t.Fatal(err)
	}

	secrets := []string{testCanary, testEnvSecret, testHeaderVal, testDBPass, testURLPass}
	for name, out := range map[string][]byte{"SARIF": sarif.Bytes(), "JUnit": junit, "HTML": page.Bytes()} {
		for _, sec := range secrets {
			if bytes.Contains(out, []byte(sec)) {
				t.Errorf("%s output holds secret %q", name, sec)
			}
		}
		for _, mask := range []string{redact.MaskCanary, redact.MaskRedacted, redact.MaskPassword} {
			want := mask
			switch name {
			case "JUnit":
				var esc strings.Builder
				if err := xml.EscapeText(&esc, []byte(mask)); err != nil {
					t.Fatal(err)
				}
				want = esc.String()
			case "HTML":
				want = html.EscapeString(mask)
			}
			if !bytes.Contains(out, []byte(want)) {
				t.Errorf("%s output lacks mask %q: the payload did not reach it", name, want)
			}
		}
	}
	// The payload reached the result and the failure: the test checks what
	// a reader of each format sees, not only headers.
	if n := bytes.Count(sarif.Bytes(), []byte("sealmarkFingerprint/v1")); n != 2 {
		t.Errorf("SARIF has %d results, want the failing probe's 2 findings", n)
	}
	if !bytes.Contains(junit, []byte("<failure ")) || !bytes.Contains(junit, []byte("<error ")) || !bytes.Contains(junit, []byte("<skipped ")) {
		t.Errorf("JUnit lacks a failure, an error or a skip:\n%s", junit)
	}
	_, failing, _ := strings.Cut(page.String(), `<details class="probe fail" open>`)
	failing, _, _ = strings.Cut(failing, "</details>")
	if n := strings.Count(failing, `<div class="finding">`); n != 2 {
		t.Errorf("the HTML page's failing probe shows %d findings, want 2", n)
	}
}
