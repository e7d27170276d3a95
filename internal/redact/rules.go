package redact

import (
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
//   - a value under a secret-looking name (SecretName) shows MaskRedacted;
//   - any other value shows as written.
func EnvValue(name, written string, canary bool) string {
	switch {
	case canary:
		return MaskCanary
	case HasPlaceholder(written):
		return written
	case SecretName(name):
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
