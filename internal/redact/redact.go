// Package redact hides secret values and replaces run-specific values by
// stable names before anything reaches a report.
//
//	r := redact.New()
//	r.Secret("sm-canary-0123456789abcdef", redact.MaskCanary)
//	r.Stable("/tmp/sealmark-81237/root", "{sandbox}")
//	r.Stable("/tmp/sealmark-81237", "{sandbox_top}")
//	s := r.String("read /tmp/sealmark-81237/root/ok.txt: sm-canary-0123456789abcdef")
//	// s == "read {sandbox}/ok.txt: <canary>"
//	r.Apply(&rep) // every exported string field of rep, rewritten in place
//
// Two kinds of value are registered. A secret (Secret) is masked wherever it
// appears, whatever surrounds it, and no fragment of an occurrence survives;
// text cut to a length keeps none of it either (a part of at least
// MinFragmentLen bytes next to a cut mark, "…" or "...", is masked too).
// A stable value (Stable) is a real path, a random token or a port that
// differs between runs; replacing it by a fixed name such as "{sandbox}" makes
// two runs of the same server produce the same report. String applies both,
// Apply applies both to every string field of a value, and Mask applies only
// the secrets, for the rare text that must keep a real path.
//
// The package also holds the report's rules for what the user wrote: which
// variable names look secret (SecretName), how a server.env entry or a header
// is shown (EnvValue, Header), and how a URL loses its user:password@ part
// (URL).
package redact

import (
	"cmp"
	"slices"
	"strings"
	"sync"
)

// Masks that replace a secret value in a report.
const (
	MaskCanary   = "<canary>"   // the two canary variables' values
	MaskRedacted = "<redacted>" // a value under a secret-looking name, a header value
	MaskPassword = "<password>" // a database role's password
)

// MinSecretLen is the length below which Secret ignores a value. Masking a
// value of a few bytes ("1", "true", "abc") wherever it appears would mangle
// every text that happens to contain it, and such a value is no secret worth
// the damage.
const MinSecretLen = 6

// Redactor rewrites text: registered secrets become their masks, then
// registered stable values become their names. The zero value is not usable;
// use New.
//
// A Redactor is safe for concurrent use. The intended use is to register
// every value first and redact afterwards; text redacted before a value was
// registered is not revisited.
type Redactor struct {
	mu      sync.RWMutex
	secrets []rule // in match order, see sortRules
	stable  []rule
}

// rule replaces value by with.
type rule struct {
	value string
	with  string
	// digits is true when value is all ASCII digits (a port, a pid); such a
	// stable value is only replaced where no digit touches it.
	digits bool
}

// New returns a Redactor with nothing registered.
func New() *Redactor { return &Redactor{} }

// Secret registers a secret value: every occurrence of value, in any text the
// Redactor rewrites, becomes mask (MaskCanary, MaskRedacted, MaskPassword,
// ...), and so does a part of it that text cut to a length kept: its first
// (or last) MinFragmentLen or more bytes right before (or after) a cut mark.
// An empty mask means MaskRedacted. A value shorter than MinSecretLen
// bytes is ignored. Registering a value again replaces its mask.
func (r *Redactor) Secret(value, mask string) {
	if len(value) < MinSecretLen {
		return
	}
	if mask == "" {
		mask = MaskRedacted
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets = upsert(r.secrets, rule{value: value, with: mask})
}

// Stable registers a run-specific value (a real path, a random token, a port)
// to be replaced by a stable name such as "{sandbox}", "{sandbox_home}",
// "{token}" or "{port}". At any position the longest registered value wins,
// so "/tmp/sealmark-x/root" → "{sandbox}" takes precedence over
// "/tmp/sealmark-x" → "{sandbox_top}".
//
// An empty value is ignored. A value made only of digits (a port, a pid) is
// replaced only where it is not part of a longer number, so port 8080 does
// not turn 18080 into 1{port}. The root "/" (or "//") is ignored: a
// harness started from / must not turn every slash into {cwd}. Any other
// value is replaced wherever it appears: register only values distinctive
// enough for that (a random path or token, not "tmp"). Registering a
// value again replaces its name.
func (r *Redactor) Stable(value, name string) {
	if value == "" || strings.Trim(value, "/") == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stable = upsert(r.stable, rule{value: value, with: name, digits: allDigits(value)})
}

// String returns s with every registered secret masked, then every
// registered stable value replaced by its name, and the password of every
// URL masked (Passwords). A stable name never replaces text inside
// a mask.
func (r *Redactor) String(s string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.rewrite(s)
}

// Mask returns s with every registered secret masked and nothing else
// changed: stable values keep their real text. It is for the few places
// where a real path must survive, such as the path of a sandbox the user
// asked to keep.
func (r *Redactor) Mask(s string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return Passwords(mask(s, secretSpans(s, r.secrets), func(t string) string { return t }))
}

// upsert adds or replaces the rule for ru.value and keeps rules sorted.
func upsert(rules []rule, ru rule) []rule {
	i := slices.IndexFunc(rules, func(x rule) bool { return x.value == ru.value })
	if i >= 0 {
		rules[i] = ru
		return rules
	}
	rules = append(rules, ru)
	slices.SortFunc(rules, compareRules)
	return rules
}

// compareRules orders rules longest value first, then lexically, so matching
// is deterministic whatever order values were registered in.
func compareRules(a, b rule) int {
	if c := cmp.Compare(len(b.value), len(a.value)); c != 0 {
		return c
	}
	return cmp.Compare(a.value, b.value)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
