package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/packs"
)

// TestRedactionOfCutEvidence: evidence cut to a length keeps the start of a
// secret ("postgres://u:db-r…", "sk-live-…"); after Finalize no such
// fragment is in any string of the report nor in any format (text, JSON,
// JUnit, SARIF, HTML), and the cut mark stays.
func TestRedactionOfCutEvidence(t *testing.T) {
	// Each fragment is the secret cut as the packs cut evidence: its first
	// characters, then a mark; the last is a URL whose password the
	// Redactor never saw.
	frags := map[string]string{
		"dsn":    testDBPass[:4],
		"env":    testEnvSecret[:8],
		"canary": testCanary[:12],
		"header": testHeaderVal[:9],
		"url":    "unseen-pw",
	}
	payload := "dsn postgres://u:" + frags["dsn"] + "… env " + frags["env"] + "... canary " + frags["canary"] +
		"… header " + frags["header"] + "… url mysql://root:" + frags["url"] + "… end"
	writeUnchecked(t)
	rep := &Report{}
	if set := fillStrings(reflect.ValueOf(rep), "rep", payload); len(set) < 30 {
		t.Fatalf("filled only %d string fields: %v", len(set), set)
	}
	rep.Packs[0].Probes[0].Verdict = packs.Failed
	rep.Packs[0].Probes[1].Verdict = packs.Errored
	rep.Packs[1].Probes[0].Verdict = packs.NotApplicable
	rep.Packs[1].Probes[1].Verdict = packs.Inconclusive
	rep.Packs[0].Probes[0].Findings[1].Accepted = ""
	rep.FailOn = "info"

	r := redact.New()
	r.Secret(testCanary, redact.MaskCanary)
	r.Secret(testEnvSecret, redact.MaskRedacted)
	r.Secret(testHeaderVal, redact.MaskRedacted)
	r.Secret(testDBPass, redact.MaskPassword)
	Finalize(rep, r)

	eachString(reflect.ValueOf(rep), "rep", func(path, s string) {
		for name, f := range frags {
			if strings.Contains(s, f) {
				t.Errorf("after Finalize %s = %q, still holds the %s fragment %q", path, s, name, f)
			}
		}
	})
	var js, txt, sarif, page bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&txt, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteSARIF(&sarif, rep, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&page, []NamedReport{{Name: "server", Report: rep}}, packs.Info); err != nil {
		t.Fatal(err)
	}
	_, junit := readJUnit(t, rep)
	for format, out := range map[string]string{"JSON": js.String(), "text": txt.String(), "SARIF": sarif.String(), "JUnit": string(junit), "HTML": page.String()} {
		for name, f := range frags {
			if strings.Contains(out, f) {
				t.Errorf("%s output holds the %s fragment %q", format, name, f)
			}
		}
		if !strings.Contains(out, "…") {
			t.Errorf("%s output lost the cut marks: the payload did not reach it", format)
		}
	}
	if want := "dsn postgres://u:" + redact.MaskPassword + "…"; !strings.Contains(rep.Packs[0].Probes[0].Findings[0].Message, want) {
		t.Errorf("message = %q, want it to hold %q", rep.Packs[0].Probes[0].Findings[0].Message, want)
	}
}
