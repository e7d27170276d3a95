package report

import (
	"bytes"
	"strings"
	"testing"

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
		"  FAIL   b                     B high: bad\n",
		"  weird  c                     C\n",
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
