package redact

import (
	"regexp"
	"strings"
)

// MinFragmentLen is the shortest part of a registered secret that is masked
// when it touches a cut mark. Text cut to a length ("postgres://u:hunt…",
// "sk-live-…") keeps the start of whatever it cut, and a secret's first
// three characters already narrow a guess; shorter runs ("…", "x…") are
// left, as they match too much ordinary text.
const MinFragmentLen = 3

// cutMarks are the marks that stand for text cut away.
var cutMarks = []string{"…", "..."}

// fragmentSpans finds the parts of secrets that touch a cut mark: the
// longest prefix of a secret (at least MinFragmentLen bytes) that ends right
// where a mark starts, and the longest suffix that starts right where a mark
// ends, as text cut at its end or its start keeps them. A fragment away from
// any mark is ordinary text and is left alone, however much of a secret it
// repeats. The whole secret is secretSpans's.
func fragmentSpans(s string, secrets []rule) []span {
	var found []span
	for _, mark := range cutMarks {
		from := 0
		for {
			i := strings.Index(s[from:], mark)
			if i < 0 {
				break
			}
			at := from + i
			end := at + len(mark)
			for order, ru := range secrets {
				if k := prefixBefore(s[:at], ru.value); k > 0 {
					found = append(found, span{start: at - k, end: at, with: ru.with, order: order})
				}
				if k := suffixAfter(s[end:], ru.value); k > 0 {
					found = append(found, span{start: end, end: end + k, with: ru.with, order: order})
				}
			}
			from = end
		}
	}
	return found
}

// prefixBefore returns the length of the longest proper prefix of v, at
// least MinFragmentLen long, that text ends with; 0 when there is none.
func prefixBefore(text, v string) int {
	for k := min(len(v)-1, len(text)); k >= MinFragmentLen; k-- {
		t := text[len(text)-k:]
		if t[0] == v[0] && t[k-1] == v[k-1] && t == v[:k] {
			return k
		}
	}
	return 0
}

// suffixAfter returns the length of the longest proper suffix of v, at
// least MinFragmentLen long, that text starts with; 0 when there is none.
func suffixAfter(text, v string) int {
	for k := min(len(v)-1, len(text)); k >= MinFragmentLen; k-- {
		t := text[:k]
		w := v[len(v)-k:]
		if t[0] == w[0] && t[k-1] == w[k-1] && t == w {
			return k
		}
	}
	return 0
}

// cutPasswordRE matches a URL cut inside its password: the scheme and
// user, then ":" and what is left of the password up to a cut mark, with
// no "@" between ("postgres://u:hunt…"). The password is unknown to the
// Redactor, so it is the shape that gives it away.
var cutPasswordRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://[^\s/?#@:'"<>` + "`" + `]*):([^\s/?#@'"<>{}` + "`" + `]+?)(…|\.\.\.)`)

// cutPasswords masks the password fragment of every URL cut inside its
// password: "postgres://u:hunt…" becomes "postgres://u:<redacted>…". A
// fragment of at most five digits is a port ("http://host:8080…") and is
// kept.
func cutPasswords(s string) string {
	if !strings.Contains(s, "…") && !strings.Contains(s, "...") {
		return s
	}
	return cutPasswordRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := cutPasswordRE.FindStringSubmatch(m)
		if len(sub[2]) <= 5 && allDigits(sub[2]) {
			return m
		}
		return sub[1] + ":" + MaskRedacted + sub[3]
	})
}
