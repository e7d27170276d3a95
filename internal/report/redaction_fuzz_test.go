package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/packs"
)

// secretMark is where the fuzzed template holds the secret.
const secretMark = "{s}"

// FuzzRedactWriters registers any secret (at least redact.MinSecretLen
// bytes) and writes a report whose every string is a template with the
// secret wherever it holds "{s}", through Finalize and every writer (JSON,
// SARIF, JUnit, text, HTML). The property is that the output does not depend on
// the secret: the same template with another secret of the same length
// (registered the same way, found at the same places) gives byte-identical
// redactor output and writer output. So no encoding a writer applies (JSON
// string escapes, XML and HTML escapes, the text report's control escapes,
// anything added later) lets any form of the secret through; the failure names the
// forms it finds.
func FuzzRedactWriters(f *testing.F) {
	f.Fuzz(func(t *testing.T, secret, template string) {
		if len(secret) < redact.MinSecretLen {
			return
		}
		other := otherSecret(secret)
		text, otherText := strings.ReplaceAll(template, secretMark, secret), strings.ReplaceAll(template, secretMark, other)
		if !slices.Equal(occurrences(text, secret), occurrences(otherText, other)) {
			return // the template meets the two secrets differently: nothing to compare
		}
		r, ro := redact.New(), redact.New()
		r.Secret(secret, redact.MaskRedacted)
		ro.Secret(other, redact.MaskRedacted)
		if got, want := r.String(text), ro.String(otherText); got != want {
			t.Fatalf("redacted %q to %q, but %q to %q: the output depends on the secret%s", text, got, otherText, want, forms(got, secret))
		}
		out, otherOut := writeAll(t, text, r), writeAll(t, otherText, ro)
		for _, name := range []string{"JSON", "SARIF", "JUnit", "text", "HTML"} {
			if !bytes.Equal(out[name], otherOut[name]) {
				t.Fatalf("the %s report depends on the secret %q%s\n%s", name, secret, forms(string(out[name]), secret), firstDiff(out[name], otherOut[name]))
			}
		}
	})
}

// otherSecret maps each byte of s through a fixed bijection, so the result
// repeats and overlaps itself exactly where s does.
func otherSecret(s string) string {
	b := []byte(s)
	for i := range b {
		b[i] ^= 0xa5
	}
	return string(b)
}

// occurrences lists where s occurs in text, overlapping occurrences included.
func occurrences(text, s string) []int {
	var at []int
	for i := 0; ; i++ {
		j := strings.Index(text[i:], s)
		if j < 0 {
			return at
		}
		i += j
		at = append(at, i)
	}
}

// writeAll fills a report with text, finalizes it with r and writes it in
// every format.
func writeAll(t *testing.T, text string, r *redact.Redactor) map[string][]byte {
	t.Helper()
	writeUnchecked(t) // every string holds the template, class and verdicts too
	rep := &Report{}
	fillStrings(reflect.ValueOf(rep), "rep", text)
	rep.Sandbox.Kept = true
	rep.Packs[0].Probes[0].Verdict = packs.Failed
	rep.Packs[0].Probes[1].Verdict = packs.Errored
	rep.Packs[1].Probes[0].Verdict = packs.NotApplicable
	rep.Packs[1].Probes[1].Verdict = packs.Inconclusive
	rep.FailOn = "info"
	Finalize(rep, r)
	out := map[string][]byte{}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"JSON":  func(b *bytes.Buffer) error { return WriteJSON(b, rep) },
		"SARIF": func(b *bytes.Buffer) error { return WriteSARIF(b, rep, SARIFOptions{ArtifactURI: "sealmark.yaml"}) },
		"JUnit": func(b *bytes.Buffer) error { return WriteJUnit(b, rep) },
		"text":  func(b *bytes.Buffer) error { return WriteText(b, rep) },
		"HTML": func(b *bytes.Buffer) error {
			return WriteHTML(b, []NamedReport{{Name: "server", Report: rep}}, packs.Info)
		},
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b.Bytes()
	}
	return out
}

// forms names the encodings of secret found in out.
func forms(out, secret string) string {
	js, _ := json.Marshal(secret)
	var x strings.Builder
	_ = xml.EscapeText(&x, []byte(secret))
	var found []string
	for name, form := range map[string]string{
		"raw": secret, "JSON-escaped": string(js[1 : len(js)-1]), "XML-escaped": x.String(),
		"text-escaped": clean(secret), "URL-encoded": url.QueryEscape(secret), "HTML-escaped": html.EscapeString(clean(secret)),
	} {
		if strings.Contains(out, form) {
			found = append(found, name)
		}
	}
	if len(found) == 0 {
		return ""
	}
	slices.Sort(found)
	return "; it holds the secret " + strings.Join(found, ", ")
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < min(len(a), len(b)) && a[i] == b[i] {
		i++
	}
	from := max(i-80, 0)
	return fmt.Sprintf("first difference at byte %d: %q\n  vs %q", i, a[from:min(i+80, len(a))], b[from:min(i+80, len(b))])
}
