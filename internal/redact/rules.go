package redact

import (
	"math"
	"net/url"
	"strings"
)

// secretFragments are the parts of a name that make it look secret.
var secretFragments = []string{"key", "token", "secret", "passw", "auth", "credential", "cookie", "bearer"}

// SecretName reports whether a variable or header name looks secret: it
// contains key, token, secret, passw, auth, credential, cookie or bearer, in
// any letter case, anywhere in the name. MONKEY and AUTHOR match; a secret
// under an unusual name such as SIGNING does not.
func SecretName(name string) bool {
	lower := strings.ToLower(name)
	for _, f := range secretFragments {
		if strings.Contains(lower, f) {
			return true
		}
	}
	return false
}

// placeholders are the harness's placeholders, which a report prints
// unexpanded.
var placeholders = []string{"{sandbox}", "{sandbox_home}", "{cwd}", "{port}", "{listener}", "{upstream}", "{dsn}"}

// HasPlaceholder reports whether a written value contains one of the
// harness's placeholders ({sandbox}, {sandbox_home}, {cwd}, {port},
// {listener}, {upstream}, {dsn}). Any other text in braces is not a
// placeholder, so a secret that happens to contain braces stays hidden.
func HasPlaceholder(written string) bool {
	if !strings.Contains(written, "{") {
		return false
	}
	for _, p := range placeholders {
		if strings.Contains(written, p) {
			return true
		}
	}
	return false
}

// EnvValue is how the report shows one server.env entry, given its name and
// value as the user wrote it:
//   - a canary variable (canary true) shows MaskCanary;
//   - a value containing a placeholder shows as written, unexpanded;
//   - a value under a secret-looking name (SecretName) or a token-shaped
//     one (TokenShaped) shows MaskRedacted;
//   - any other value shows as written.
func EnvValue(name, written string, canary bool) string {
	switch {
	case canary:
		return MaskCanary
	case HasPlaceholder(written):
		return written
	case SecretName(name) || TokenShaped(written):
		return MaskRedacted
	}
	return written
}

// Header is how the report lists one server.headers entry: under the name
// "header:<Name>" in the env block, with EnvValue's rule for the value.
//
//	name, value := redact.Header("Authorization", "Bearer abc") // "header:Authorization", "<redacted>"
func Header(name, written string) (string, string) {
	return "header:" + name, EnvValue(name, written, false)
}

// URL returns raw without its user:password@ (or user@) part and otherwise
// exactly as written: nothing is re-encoded or normalized.
//
// The user information is what precedes the last "@" of the authority, which
// starts after the first "//" (or at the start when there is none) and ends at
// the first "/", "?" or "#". When raw does not parse as a URL (placeholders
// such as {port} count as parsable), the authority
// is taken to end only at "?" or "#", so a password holding a "/" is still
// removed; that can also remove part of a malformed host, which is the safer
// mistake.
func URL(raw string) string {
	start := 0
	if i := strings.Index(raw, "//"); i >= 0 {
		start = i + 2
	}
	stops := "/?#"
	if _, err := url.Parse(withoutPlaceholders(raw)); err != nil {
		stops = "?#"
	}
	authority := raw[start:]
	if i := strings.IndexAny(authority, stops); i >= 0 {
		authority = authority[:i]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return raw
	}
	return raw[:start] + raw[start+at+1:]
}

// withoutPlaceholders replaces each placeholder by "0", which parses wherever
// a placeholder may stand in a URL (host, port, path).
func withoutPlaceholders(s string) string {
	for _, p := range placeholders {
		s = strings.ReplaceAll(s, p, "0")
	}
	return s
}

// tokenPrefixes start the tokens of well-known services (OpenAI and
// Anthropic keys, GitHub, Slack, GitLab, npm, PyPI, AWS, Google, a JWT).
var tokenPrefixes = []string{
	"sk-", "sk_", "pk_", "rk_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
	"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "glpat-", "npm_", "pypi-", "AKIA", "AIza", "eyJ",
}

// TokenShaped reports whether a value looks like a token whatever name it
// is under: a well-known token prefix (sk-, ghp_, xoxb-, glpat-, AKIA, a
// JWT's eyJ, ...) followed by at least 8 characters with no space; or 16
// or more characters with no space or path separator that mix letters and
// digits and vary enough (at least 3 bits of entropy per character, which
// a random token has and "aaaa1111aaaa1111" has not). A value holding a
// placeholder is none.
func TokenShaped(v string) bool {
	if len(v) < MinSecretLen || HasPlaceholder(v) || strings.ContainsAny(v, " \t\n") {
		return false
	}
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(v, p) && len(v) >= len(p)+8 {
			return true
		}
	}
	if len(v) < 16 || strings.ContainsAny(v, `/\`) {
		return false
	}
	letters, digits := false, false
	for _, r := range v {
		letters = letters || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
		digits = digits || ('0' <= r && r <= '9')
	}
	return letters && digits && entropy(v) >= 3
}

// SecretEnv is the one rule for "this environment (or header) value is a
// secret": a value under a secret-looking name (SecretName) or a
// token-shaped one (TokenShaped), unless it holds a placeholder or is
// shorter than MinSecretLen (too short to mask anywhere).
func SecretEnv(name, value string) bool {
	if len(value) < MinSecretLen || HasPlaceholder(value) {
		return false
	}
	return SecretName(name) || TokenShaped(value)
}

// entropy is the Shannon entropy of s's bytes, in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
