package upstream

import (
	"github.com/sealmark/sealmark/observers/internal/ledger"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/sealmark/sealmark/internal/redact"
)

// Credential is one credential a request carried: where it was (such as
// "header:Authorization" or "query:api_key"), the Host header it came under,
// and its value. Values never appear in records; a probe compares them with
// the secrets it knows.
type Credential struct {
	Where string
	Host  string
	Value string
}

// Bounds on what the stub keeps of credentials.
const (
	credentialsPerRequest = 16
	credentialValueMax    = 4 << 10
)

// vault keeps the most recent credentials, by token, oldest dropped first.
type vault struct {
	mu   sync.Mutex
	max  int
	kept []kept // oldest first
}

type kept struct {
	token string
	Credential
}

func (v *vault) add(token string, cs []Credential) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, c := range cs {
		v.kept = append(v.kept, kept{token, c})
	}
	if over := len(v.kept) - v.max; over > 0 {
		v.kept = slices.Delete(v.kept, 0, over)
	}
}

func (v *vault) of(token string) []Credential {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []Credential
	for _, k := range v.kept {
		if k.token == token {
			out = append(out, k.Credential)
		}
	}
	return out
}

// credentialsOf returns the credentials r carries: the values of headers
// and query parameters whose names look secret (redact.SecretName), at most
// credentialsPerRequest, each cut to credentialValueMax bytes.
func credentialsOf(r *http.Request) []Credential {
	var out []Credential
	add := func(where, value string) {
		if len(out) < credentialsPerRequest {
			out = append(out, Credential{Where: where, Host: r.Host, Value: value[:min(len(value), credentialValueMax)]})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Header)) {
		if redact.SecretName(name) {
			for _, v := range r.Header[name] {
				add("header:"+name, v)
			}
		}
	}
	for _, p := range queryPairs(r.URL.RawQuery) {
		if p.hasValue && redact.SecretName(p.name) {
			add("query:"+ledger.Clean(p.name, 128), p.value)
		}
	}
	return out
}

// places lists where cs came from, once each, in order: the record's
// Data["credentials"].
func places(cs []Credential) string {
	var names []string
	for _, c := range cs {
		if !slices.Contains(names, c.Where) {
			names = append(names, c.Where)
		}
	}
	return strings.Join(names, ",")
}

// pair is one name=value of a query string, as sent and decoded.
type pair struct {
	name, value string // decoded (as sent when it does not decode)
	hasValue    bool
}

// queryPairs splits a raw query on "&" and ";" (some servers split on
// either, so both are treated as separators).
func queryPairs(raw string) []pair {
	var out []pair
	for seg := range strings.FieldsFuncSeq(raw, func(r rune) bool { return r == '&' || r == ';' }) {
		name, value, hasValue := strings.Cut(seg, "=")
		out = append(out, pair{name: unescape(name), value: unescape(value), hasValue: hasValue})
	}
	return out
}

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// redactedTarget is the request's path and query with the value of every
// secret-looking query parameter replaced by "<redacted>".
func redactedTarget(u *url.URL) string {
	p := u.EscapedPath()
	if u.RawQuery == "" {
		return p
	}
	var b strings.Builder
	b.WriteString(p)
	b.WriteByte('?')
	rest := u.RawQuery
	for rest != "" {
		i := strings.IndexAny(rest, "&;")
		seg, sep := rest, ""
		if i >= 0 {
			seg, sep, rest = rest[:i], rest[i:i+1], rest[i+1:]
		} else {
			rest = ""
		}
		if name, _, ok := strings.Cut(seg, "="); ok && redact.SecretName(unescape(name)) {
			seg = name + "=" + redact.MaskRedacted
		}
		b.WriteString(seg + sep)
	}
	return b.String()
}
