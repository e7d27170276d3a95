package redact

import (
	"strings"
	"testing"
)

// TestFragmentNextToACutMarkIsMasked: evidence cut to a length keeps the
// start (or, cut from the front, the end) of a secret; the Redactor masks
// that part too, and leaves the cut mark.
func TestFragmentNextToACutMarkIsMasked(t *testing.T) {
	r := New()
	r.Secret("hunter2pass", MaskPassword)
	r.Secret("sk-live-0123456789abcdef", MaskRedacted)
	for in, want := range map[string]string{
		"connect postgres://u:hunt…":            "connect postgres://u:<password>…",
		"key sk-live-…":                         "key <redacted>…",
		"key sk-live-012...":                    "key <redacted>...",
		"…6789abcdef was sent":                  "…<redacted> was sent",
		"...ter2pass":                           "...<password>",
		"args: [a, hun…]":                       "args: [a, <password>…]",
		"whole hunter2pass then hunt…":          "whole <password> then <password>…",
		"a secret cut at its last: hunter2pas…": "a secret cut at its last: <password>…",
	} {
		got := r.String(in)
		if got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
		if got := r.Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFragmentAwayFromACutMarkIsKept: text sharing a few letters with a
// secret, not next to a cut mark, is ordinary text; and fewer than
// MinFragmentLen letters next to a mark are left too.
func TestFragmentAwayFromACutMarkIsKept(t *testing.T) {
	r := New()
	r.Secret("hunter2pass", MaskPassword)
	r.Secret("sk-live-0123456789abcdef", MaskRedacted)
	for _, in := range []string{
		"the hunt is on",
		"sk-live- keys are for production",
		"hunt… no, hu…",                // "hunt" is a prefix: masked; see below
		"a hunter2 (not the password)", // no mark
		"hu… and sk…",                  // two letters only
		"cut at … hunt",                // the fragment does not touch the mark
	} {
		got := r.String(in)
		if in == "hunt… no, hu…" {
			if want := "<password>… no, hu…"; got != want {
				t.Errorf("String(%q) = %q, want %q", in, got, want)
			}
			continue
		}
		if got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}

// TestCutURLPasswordIsMasked: a URL cut inside its password loses what is
// left of it though the Redactor never saw the password; a port cut the
// same way is kept.
func TestCutURLPasswordIsMasked(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:hunt…":               "postgres://u:<redacted>…",
		"dsn mysql://root:s3cr... (cut)":   "dsn mysql://root:<redacted>... (cut)",
		"http://127.0.0.1:8080…":           "http://127.0.0.1:8080…",
		"postgres://u:<password>@h/db…":    "postgres://u:<password>@h/db…",
		"postgres://u:pw@host/db… at last": "postgres://u:<redacted>@host/db… at last",
		"http://127.0.0.1:{port}…":         "http://127.0.0.1:{port}…",
		"http://host/a:b…":                 "http://host/a:b…",
	} {
		if got := New().String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
		if got := Passwords(in); got != want {
			t.Errorf("Passwords(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFragmentsOfManyMarksStayCheap: text of nothing but cut marks (a
// hostile server's output) is rewritten in one pass, and the secret's
// fragments among them are all masked.
func TestFragmentsOfManyMarksStayCheap(t *testing.T) {
	r := New()
	r.Secret("sk-live-0123456789abcdef", MaskRedacted)
	in := strings.Repeat("...", 200000) + "sk-live-01…"
	got := r.String(in)
	if strings.Contains(got, "sk-live-01") || !strings.HasSuffix(got, "<redacted>…") {
		t.Errorf("String(...) ends %q", got[len(got)-40:])
	}
}
