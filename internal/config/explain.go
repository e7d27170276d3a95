package config

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/environ"
	"github.com/sealmark/sealmark/internal/redact"
)

// Explain writes one line per key, in a fixed order, with its resolved value
// and where the value came from:
//
//	server.command = npx   (sealmark.yaml:2)
//	server.env.API_KEY = <redacted>   (sealmark.yaml:9)
//	header:Authorization = <redacted>   (flag --header)
//	sandbox.max_mib = 1024   (default)
//
// A map-valued key gets one line per entry, or "= {}" when it has none. A
// value holding a line break is quoted as a Go string, so every entry stays
// on one line.
// Values are shown as the report shows them (see the environment page):
// server.env values under a secret-looking name are <redacted> unless they
// hold a placeholder (redact.EnvValue), the canary variables are <canary>, headers are listed
// as header:<Name> with the same rule, server.url loses its user:password@,
// db.admin_dsn its password, a URL's password anywhere else (the command,
// its arguments, server.start) is <redacted>, a token-shaped env value is
// <redacted> whatever its name, hints under a secret-looking name are
// <redacted>, and server.files shows each file's size, never its content.
func (r *Resolved) Explain(w io.Writer) error {
	var err error
	line := func(key, value, originKey string) {
		if strings.ContainsAny(value, "\r\n") {
			value = strconv.Quote(value) // one line per key, whatever the value holds
		}
		if err == nil {
			_, err = fmt.Fprintf(w, "%s = %s   (%s)\n", key, value, r.fromOrUnknown(originKey))
		}
	}
	for i := range settings {
		s := &settings[i]
		switch s.kind {
		case kindEnv, kindHeaders, kindFiles, kindHints:
			if !r.explainEntries(s, line) {
				line(s.key, "{}", s.key)
			}
		default:
			line(s.key, r.shown(s), s.key)
		}
	}
	return err
}

// explainEntries writes the lines of a map-valued key's entries and reports
// whether there were any.
func (r *Resolved) explainEntries(s *setting, line func(key, value, originKey string)) bool {
	switch s.kind {
	case kindEnv:
		for _, kv := range r.Env {
			canary := kv.Name == environ.CanaryVar || kv.Name == environ.FakeAPIKeyVar
			line(s.key+"."+kv.Name, redact.EnvValue(kv.Name, kv.Value, canary), s.key+"."+kv.Name)
		}
		return len(r.Env) > 0
	case kindHeaders:
		for _, kv := range r.Headers {
			name, value := redact.Header(kv.Name, kv.Value)
			line(name, value, s.key+"."+kv.Name)
		}
		return len(r.Headers) > 0
	case kindFiles:
		for _, f := range r.Files {
			line(s.key+"."+f.Path, fmt.Sprintf("<%d bytes>", len(f.Content)), s.key+"."+f.Path)
		}
		return len(r.Files) > 0
	case kindHints:
		keys := entryKeys(s, &r.Settings)
		for _, key := range keys {
			pack, name, ok := strings.Cut(strings.TrimPrefix(key, "hints."), ".")
			if !ok {
				line(key, "{}", key)
				continue
			}
			line(key, hintValue(name, r.Hints[pack][name]), key)
		}
		return len(keys) > 0
	}
	return false
}

func (r *Resolved) fromOrUnknown(key string) string {
	if from := r.from(key); from != "" {
		return from
	}
	return "unknown"
}

// shown is a single-valued key's value as Explain prints it.
func (r *Resolved) shown(s *setting) string {
	if s.field == nil { // sandbox.network: only closed is accepted
		return "closed"
	}
	switch v := s.field(&r.Settings).(type) {
	case *string:
		switch s.key {
		case "server.url":
			return quoteEmpty(redact.URL(*v))
		case "db.admin_dsn":
			return quoteEmpty(withoutPassword(*v))
		}
		return quoteEmpty(redact.Passwords(*v)) // server.command, server.start
	case *[]string:
		quoted := make([]string, len(*v))
		for i, item := range *v {
			quoted[i] = strconv.Quote(redact.Passwords(item))
		}
		return "[" + strings.Join(quoted, ", ") + "]"
	case *bool:
		return strconv.FormatBool(*v)
	case *int:
		return strconv.Itoa(*v)
	case *time.Duration:
		return v.String()
	case *[]map[string]any:
		return fmt.Sprintf("<%d rows>", len(*v))
	}
	panic("config: Explain cannot show " + s.key)
}

func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// hintValue is one hint as JSON, with the values under secret-looking names
// (the hint's own name or a key inside it) replaced by <redacted>.
func hintValue(name string, v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // <redacted>, not \u003credacted\u003e
	if err := enc.Encode(hideSecrets(v, redact.SecretName(name))); err != nil {
		return fmt.Sprint(hideSecrets(v, redact.SecretName(name)))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func hideSecrets(v any, secret bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[k] = hideSecrets(val, secret || redact.SecretName(k))
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = hideSecrets(val, secret)
		}
		return out
	case string:
		if secret && !redact.HasPlaceholder(x) {
			return redact.MaskRedacted
		}
	default:
		if secret && x != nil {
			return redact.MaskRedacted
		}
	}
	return v
}

// dsnPassword finds a password in a key=value connection string or a URL's
// query: password=..., pwd=..., quoted or not.
var dsnPassword = regexp.MustCompile(`(?i)(^|[\s;&?])(password|pwd)(\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\{[^}]*\}|[^\s;&]*)`)

// kvDSN matches a key=value connection string ("host=db user=x", "Server=db;...").
var kvDSN = regexp.MustCompile(`^\s*[A-Za-z][A-Za-z0-9_ ]*=`)

// withoutPassword returns a database connection string with its password
// replaced by <password> and otherwise as written. It knows URL forms
// (postgres://user:pass@host/db, user:pass@tcp(host)/db), key=value forms
// (host=db password=pass, Server=db;Password=pass) and a password in a URL's
// query (?password=pass).
func withoutPassword(dsn string) string {
	if !kvDSN.MatchString(dsn) {
		if stripped := redact.URL(dsn); stripped != dsn {
			start := 0
			if i := strings.Index(dsn, "//"); i >= 0 {
				start = i + 2
			}
			n := len(dsn) - len(stripped) // the user information and its "@"
			if user, _, hasPass := strings.Cut(dsn[start:start+n-1], ":"); hasPass {
				dsn = dsn[:start] + user + ":" + redact.MaskPassword + "@" + dsn[start+n:]
			}
		}
	}
	return dsnPassword.ReplaceAllString(dsn, "${1}${2}${3}"+redact.MaskPassword)
}
