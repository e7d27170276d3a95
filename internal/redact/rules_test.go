package redact

import "testing"

func TestSecretName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"API_KEY", true},
		{"api_key", true},
		{"MONKEY", true},
		{"AUTHOR", true},
		{"Authorization", true},
		{"GITHUB_TOKEN", true},
		{"client_secret", true},
		{"DB_PASSWORD", true},
		{"PASSWD", true},
		{"AWS_CREDENTIALS", true},
		{"Cookie", true},
		{"X-Bearer", true},
		{"SIGNING", false},
		{"MODE", false},
		{"PATH", false},
		{"PASS", false}, // "passw" is the fragment
		{"", false},
	}
	for _, tt := range tests {
		if got := SecretName(tt.name); got != tt.want {
			t.Errorf("SecretName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/mcp"},
		{"https://user:pa55word@example.test:8443/mcp?x=1#f", "https://example.test:8443/mcp?x=1#f"},
		{"https://user@example.test/mcp", "https://example.test/mcp"},
		{"https://@example.test/mcp", "https://example.test/mcp"},
		{"http://127.0.0.1:{port}/mcp", "http://127.0.0.1:{port}/mcp"},     // placeholder left as written
		{"http://u:p@127.0.0.1:{port}/mcp", "http://127.0.0.1:{port}/mcp"}, // unparsable: string logic
		{"HTTP://User:Pw@Host/A%2Fb?q=%20", "HTTP://Host/A%2Fb?q=%20"},     // nothing re-encoded
		{"http://host/@scope/pkg", "http://host/@scope/pkg"},               // @ in the path is not user info
		{"http://u:p@ss@host/x", "http://host/x"},                          // last @ of the authority
		{"http://u:pa/ss@host:1/x", "http://host:1/x"},                     // unparsable: password with a slash
		{"postgres://role:pw@127.0.0.1:5432/db?sslmode=disable", "postgres://127.0.0.1:5432/db?sslmode=disable"},
		{"user:pass@host:5432/db", "host:5432/db"},
		{"", ""},
		{"not a url", "not a url"},
	}
	for _, tt := range tests {
		if got := URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEnvValue(t *testing.T) {
	tests := []struct {
		name, written string
		canary        bool
		want          string
	}{
		{"SEALMARK_CANARY", "sm-canary-0123456789abcdef", true, "<canary>"},
		{"SEALMARK_FAKE_API_KEY", "{sandbox}", true, "<canary>"}, // canary wins over everything
		{"API_KEY", "sk-live-123", false, "<redacted>"},
		{"MONKEY", "banana", false, "<redacted>"},
		{"AUTHOR", "someone", false, "<redacted>"},
		{"SIGNING", "abc123secret", false, "abc123secret"},
		{"MODE", "fast", false, "fast"},
		{"DATABASE_PASSWORD", "{dsn}", false, "{dsn}"},
		{"TOKEN_FILE", "{sandbox_home}/token", false, "{sandbox_home}/token"},
		{"API_KEY", "sk-{not-a-placeholder}", false, "<redacted>"},
		{"API_KEY", "", false, "<redacted>"},
	}
	for _, tt := range tests {
		if got := EnvValue(tt.name, tt.written, tt.canary); got != tt.want {
			t.Errorf("EnvValue(%q, %q, %v) = %q, want %q", tt.name, tt.written, tt.canary, got, tt.want)
		}
	}
}

func TestHeader(t *testing.T) {
	tests := []struct{ name, written, wantName, wantValue string }{
		{"Authorization", "Bearer abc", "header:Authorization", "<redacted>"},
		{"X-Api-Key", "k-123", "header:X-Api-Key", "<redacted>"},
		{"X-Trace", "on", "header:X-Trace", "on"},
		{"X-Upstream-Token", "{upstream}/t", "header:X-Upstream-Token", "{upstream}/t"},
		{"X-Signing", "abc", "header:X-Signing", "abc"},
	}
	for _, tt := range tests {
		n, v := Header(tt.name, tt.written)
		if n != tt.wantName || v != tt.wantValue {
			t.Errorf("Header(%q, %q) = %q, %q, want %q, %q", tt.name, tt.written, n, v, tt.wantName, tt.wantValue)
		}
	}
}

func TestTokenShaped(t *testing.T) {
	for v, want := range map[string]bool{
		"sk-live-abcdefgh":                 true, // a known prefix
		"ghp_a1b2c3d4e5f6g7h8i9":           true,
		"xoxb-1234-5678-abcdef":            true,
		"AKIAIOSFODNN7EXAMPLE":             true,
		"eyJhbGciOiJIUzI1NiJ9.e30.sig":     true,
		"Zq81xPp03LmVv72KcA":               true,  // long, mixed, varied
		"sk-short":                         false, // a prefix but nothing after it
		"aaaa1111aaaa1111":                 false, // mixed but hardly varied
		"production-release":               false, // no digit
		"/home/me/projects/2026":           false, // a path
		"127.0.0.1":                        false,
		"debug":                            false,
		"{sandbox}/memory-2026abcdef.json": false, // a placeholder
		"two words 1234567890abcdef":       false,
		"sk-{port}-abcdefgh":               false,
	} {
		if got := TokenShaped(v); got != want {
			t.Errorf("TokenShaped(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestSecretEnv(t *testing.T) {
	for _, tt := range []struct {
		name, value string
		want        bool
	}{
		{"GITHUB_TOKEN", "abcdef", true},                 // the name
		{"UPSTREAM_PAT", "ghp_a1b2c3d4e5f6g7h8i9", true}, // the value's shape
		{"GITHUB_TOKEN", "abc", false},                   // too short to mask anywhere
		{"API_KEY", "{dsn}", false},                      // a placeholder
		{"LOG_LEVEL", "debug", false},
		{"ROOT", "/home/me/projects/2026", false},
	} {
		if got := SecretEnv(tt.name, tt.value); got != tt.want {
			t.Errorf("SecretEnv(%q, %q) = %v, want %v", tt.name, tt.value, got, tt.want)
		}
	}
	// The report shows a token-shaped value under a plain name masked.
	if got := EnvValue("UPSTREAM_PAT", "ghp_a1b2c3d4e5f6g7h8i9", false); got != MaskRedacted {
		t.Errorf("EnvValue of a token-shaped value = %q, want %q", got, MaskRedacted)
	}
}
