package report

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// clean makes one line of untrusted text safe for a terminal: control
// characters (newlines included), bidirectional overrides and invalid UTF-8
// are written as escapes such as \x1b and \u202e.
func clean(s string) string {
	if !needsCleaning(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r) || bidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsCleaning(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unicode.IsControl(r) || bidi(r) {
			return true
		}
		i += size
	}
	return false
}

// bidi reports whether r changes the direction of the text around it, which
// could make a terminal show text in another order than it is.
func bidi(r rune) bool {
	return r == 0x200e || r == 0x200f || r == 0x061c ||
		(0x202a <= r && r <= 0x202e) || (0x2066 <= r && r <= 0x2069)
}

// indent cleans each line of a possibly multi-line text and joins them with
// pad before every line after the first; trailing newlines are dropped.
func indent(s, pad string) string {
	s = strings.TrimRight(s, "\r\n")
	if !strings.Contains(s, "\n") {
		return clean(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = clean(strings.TrimSuffix(l, "\r"))
	}
	return strings.Join(lines, "\n"+pad)
}

// word shows one command-line word or env value unambiguously: as written
// when it is plain, quoted Go-style when it is empty or holds a space, a
// quote, a backslash or anything clean would escape.
func word(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'\\") && !needsCleaning(s) {
		return s
	}
	return strconv.Quote(s)
}

// CleanLine is s's first line (after surrounding space), safe for a
// terminal as clean makes it, with " …" when more lines follow: server
// text as one line of a table.
func CleanLine(s string) string {
	return firstLine(strings.TrimSpace(s))
}
