package redact

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

// passwordRE matches the scheme, user and password of a URL written in
// any text: "postgres://u:pw@" of "connect postgres://u:pw@db/app". The
// password ends at the last "@" before a space, quote, slash, "?" or "#",
// so one holding a raw "@" is masked whole.
var passwordRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://[^\s/?#@:'"<>` + "`" + `]*):([^\s/?#'"` + "`" + `]+)@`)

// Passwords returns s with the password of every URL in it masked:
// "psql postgres://u:pw@db/app" becomes "psql
// postgres://u:<redacted>@db/app"; a password already masked ("<password>")
// stays as it is. Every text a Redactor rewrites gets it last, so a
// password written in a server's arguments, an environment value or
// anything the server says never reaches a report, however short.
//
// A URL cut inside its password loses what is left of it too:
// "postgres://u:hunt…" becomes "postgres://u:<redacted>…" (see
// cutPasswords).
func Passwords(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	s = passwordRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := passwordRE.FindStringSubmatch(m)
		if strings.HasPrefix(sub[2], "<") && strings.HasSuffix(sub[2], ">") {
			return m
		}
		return sub[1] + ":" + MaskRedacted + "@"
	})
	return cutPasswords(s)
}

// URLPasswords returns the passwords of the URLs written in s, for a
// caller to register as secrets (a server may echo one without its URL).
func URLPasswords(s string) []string {
	var out []string
	for _, m := range passwordRE.FindAllStringSubmatch(s, -1) {
		if !HasPlaceholder(m[2]) {
			out = append(out, m[2])
		}
	}
	return out
}

// span is one stretch of text to mask: [start, end) becomes with.
type span struct {
	start, end int
	with       string
	order      int // index of the rule, for ties at the same start
}

// rewrite masks secrets, then replaces stable values in the text between
// masks. The caller holds r.mu.
func (r *Redactor) rewrite(s string) string {
	if s == "" || (len(r.secrets) == 0 && len(r.stable) == 0) {
		return Passwords(s)
	}
	return Passwords(mask(s, secretSpans(s, r.secrets), func(t string) string { return replaceStable(t, r.stable) }))
}

// mask writes s with each span replaced by its mask and the text between
// spans passed through between.
func mask(s string, spans []span, between func(string) string) string {
	if len(spans) == 0 {
		return between(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, sp := range spans {
		b.WriteString(between(s[at:sp.start]))
		b.WriteString(sp.with)
		at = sp.end
	}
	b.WriteString(between(s[at:]))
	return b.String()
}

// secretSpans finds every occurrence of every secret, overlapping ones
// included, and every fragment of one next to a cut mark (fragmentSpans),
// and merges overlapping occurrences into one span so that no byte of any
// occurrence survives. A merged span takes the mask of the occurrence
// that starts first (the longest, at equal starts). Occurrences that only
// touch stay separate masks.
func secretSpans(s string, secrets []rule) []span {
	var found []span
	for order, ru := range secrets {
		from := 0
		for {
			i := strings.Index(s[from:], ru.value)
			if i < 0 {
				break
			}
			start := from + i
			end := start + len(ru.value)
			if n := len(found); n > 0 && found[n-1].order == order && start < found[n-1].end {
				found[n-1].end = end // a self-overlapping run of the same secret
			} else {
				found = append(found, span{start: start, end: end, with: ru.with, order: order})
			}
			from = start + 1
		}
	}
	found = append(found, fragmentSpans(s, secrets)...)
	if len(found) == 0 {
		return nil
	}
	slices.SortFunc(found, func(a, b span) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(a.order, b.order)
	})
	merged := found[:1]
	for _, sp := range found[1:] {
		last := &merged[len(merged)-1]
		if sp.start < last.end {
			last.end = max(last.end, sp.end)
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

// replaceStable replaces stable values scanning left to right; at each
// position the first matching rule (the longest value) wins, and the text it
// wrote is not scanned again.
func replaceStable(s string, rules []rule) string {
	var live []rule
	for _, ru := range rules {
		if strings.Contains(s, ru.value) {
			live = append(live, ru)
		}
	}
	if len(live) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		ru, ok := matchAt(s, i, live)
		if !ok {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString(ru.with)
		i += len(ru.value)
	}
	return b.String()
}

func matchAt(s string, i int, rules []rule) (rule, bool) {
	for _, ru := range rules {
		if !strings.HasPrefix(s[i:], ru.value) {
			continue
		}
		end := i + len(ru.value)
		if ru.digits && ((i > 0 && isDigit(s[i-1])) || (end < len(s) && isDigit(s[end]))) {
			continue
		}
		return ru, true
	}
	return rule{}, false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
