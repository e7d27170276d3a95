package redact

import (
	"strings"
	"sync"
	"testing"
)

func TestStringMasksSecretsAndStableValues(t *testing.T) {
	r := New()
	r.Secret("sm-canary-0123456789abcdef", MaskCanary)
	r.Secret("s3cr3t-db-pass", MaskPassword)
	r.Stable("/tmp/sealmark-81237", "{sandbox_top}")
	r.Stable("/tmp/sealmark-81237/root", "{sandbox}")
	r.Stable("/tmp/sealmark-81237/home", "{sandbox_home}")
	r.Stable("f00dfeedcafe", "{token}")

	tests := []struct{ in, want string }{
		{"", ""},
		{"nothing here", "nothing here"},
		{"echo sm-canary-0123456789abcdef!", "echo <canary>!"},
		{"sm-canary-0123456789abcdefsm-canary-0123456789abcdef", "<canary><canary>"},
		{"postgres://r:s3cr3t-db-pass@127.0.0.1/db", "postgres://r:<password>@127.0.0.1/db"},
		{"read /tmp/sealmark-81237/root/ok.txt", "read {sandbox}/ok.txt"},
		{"HOME=/tmp/sealmark-81237/home", "HOME={sandbox_home}"},
		{"/tmp/sealmark-81237/canary/secret.txt", "{sandbox_top}/canary/secret.txt"},
		{"/tmp/sealmark-81237/rootless", "{sandbox}less"}, // a path-like value matches as text
		{"token=f00dfeedcafe;", "token={token};"},
		{"x /tmp/sealmark-81237/root/s3cr3t-db-pass", "x {sandbox}/<password>"},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSecretHoldingStableValueIsMaskedWhole(t *testing.T) {
	r := New()
	r.Stable("/tmp/sealmark-9/root", "{sandbox}")
	r.Secret("dsn:/tmp/sealmark-9/root/pw", MaskPassword)
	if got, want := r.String("use dsn:/tmp/sealmark-9/root/pw now"), "use <password> now"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestStableNeverRewritesInsideAMask(t *testing.T) {
	r := New()
	r.Secret("hunter22", "<redacted>")
	r.Stable("redacted", "{oops}")
	if got, want := r.String("a hunter22 b redacted"), "a <redacted> b {oops}"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestShortSecretsAreIgnored(t *testing.T) {
	r := New()
	r.Secret("abcde", MaskRedacted) // 5 bytes: below MinSecretLen
	r.Secret("", MaskRedacted)
	r.Secret("abcdef", "") // 6 bytes; empty mask means MaskRedacted
	if got, want := r.String("abcde abcdef"), "abcde <redacted>"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestOverlappingSecretsLeaveNoFragment(t *testing.T) {
	r := New()
	r.Secret("abcdefgh", "<A>")
	r.Secret("efghijkl", "<B>")
	r.Secret("aaaaaa", "<C>")
	tests := []struct{ in, want string }{
		{"xxabcdefghijklyy", "xx<A>yy"},    // overlap: one mask, the one starting first
		{"xxefghijklabcdefgh", "xx<B><A>"}, // touching: two masks
		{"aaaaaaaa", "<C>"},                // a self-overlapping run
	}
	for _, tt := range tests {
		got := r.String(tt.in)
		if got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
		for _, frag := range []string{"ijkl", "abcd", "aa"} {
			if strings.Contains(got, frag) {
				t.Errorf("String(%q) = %q still holds %q", tt.in, got, frag)
			}
		}
	}
}

func TestDigitsOnlyStableValueNeedsNumberBoundary(t *testing.T) {
	r := New()
	r.Stable("8080", "{port}")
	tests := []struct{ in, want string }{
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:{port}/mcp"},
		{"8080", "{port}"},
		{"18080 80801 8080x", "18080 80801 {port}x"},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestRootIsNeverAStableValue pins that a harness started from / does not
// turn every slash of a report into {cwd}.
func TestRootIsNeverAStableValue(t *testing.T) {
	r := New()
	r.Stable("/", "{cwd}")
	r.Stable("/tmp/sealmark-81237/root", "{sandbox}")
	in := "/usr/bin/node /tmp/sealmark-81237/root/x.js"
	if got, want := r.String(in), "/usr/bin/node {sandbox}/x.js"; got != want {
		t.Errorf("String(%q) = %q, want %q", in, got, want)
	}
}

func TestRegisteringAgainReplacesAndOrderDoesNotMatter(t *testing.T) {
	a, b := New(), New()
	a.Stable("/tmp/s-1", "{top}")
	a.Stable("/tmp/s-1/root", "{sandbox}")
	a.Secret("secret-one", "<x>")
	a.Secret("secret-one", "<y>")
	b.Secret("secret-one", "<y>")
	b.Stable("/tmp/s-1/root", "{sandbox}")
	b.Stable("/tmp/s-1", "{top}")
	in := "/tmp/s-1/root/a /tmp/s-1/b secret-one"
	if got, want := a.String(in), "{sandbox}/a {top}/b <y>"; got != want {
		t.Errorf("a.String = %q, want %q", got, want)
	}
	if a.String(in) != b.String(in) {
		t.Errorf("registration order changed the result: %q vs %q", a.String(in), b.String(in))
	}
}

func TestLeftmostMatchWins(t *testing.T) {
	r := New()
	r.Stable("abcdef", "{one}")
	r.Stable("abcdeg", "{two}")
	r.Stable("bcdefx", "{three}")
	// "abcdef" starts first and wins; what follows is scanned afresh.
	if got, want := r.String("abcdefx abcdeg"), "{one}x {two}"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestConcurrentUse(t *testing.T) {
	r := New()
	r.Secret("concurrent-secret", MaskRedacted)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			r.Stable(strings.Repeat("z", 10+i), "{z}")
			for range 100 {
				if got := r.String("a concurrent-secret b"); got != "a <redacted> b" {
					t.Errorf("got %q", got)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestMaskKeepsStableValues(t *testing.T) {
	r := New()
	r.Secret("hunter22", MaskPassword)
	r.Stable("/tmp/sealmark-7/root", "{sandbox}")
	if got, want := r.Mask("/tmp/sealmark-7/root/hunter22"), "/tmp/sealmark-7/root/<password>"; got != want {
		t.Errorf("Mask = %q, want %q", got, want)
	}
	if got, want := r.Mask("nothing secret"), "nothing secret"; got != want {
		t.Errorf("Mask = %q, want %q", got, want)
	}
}

func TestPasswordsInURLs(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:pw@host/db":                         "postgres://u:<redacted>@host/db",
		"psql 'mysql://root:p@ss@h/x' and https://a@b/c":  "psql 'mysql://root:<redacted>@h/x' and https://a@b/c",
		"DATABASE_URL=postgres://r:<password>@127.0.0.1/": "DATABASE_URL=postgres://r:<password>@127.0.0.1/",
		"see https://example.test/a:b@c":                  "see https://example.test/a:b@c",
		"no url: user:pw@host":                            "no url: user:pw@host",
	} {
		if got := New().String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}
