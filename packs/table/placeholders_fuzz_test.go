package table

import (
	"regexp"
	"testing"
	"unicode/utf8"
)

// FuzzMatchesPlaceholder expands a Matches expectation as a row does (each
// value through regexp.QuoteMeta): for any literal text around {token} and
// any token value, the expression is exactly that literal text with the
// value in it, so a value holding ".*", "(" or "\" matches only itself. A
// {name} the run has no value for is reported missing and left as written.
func FuzzMatchesPlaceholder(f *testing.F) {
	f.Fuzz(func(t *testing.T, prefix, suffix, value string) {
		if !utf8.ValidString(prefix) || !utf8.ValidString(value) || !utf8.ValidString(suffix) {
			return // regexp refuses invalid UTF-8; the row reports that it does not compile
		}
		x := &expander{vals: map[string]string{"token": value, "sandbox": "/tmp/sealmark-1/root"}}
		expr := x.text(regexp.QuoteMeta(prefix)+"{token}"+regexp.QuoteMeta(suffix), regexp.QuoteMeta)
		if x.missing != "" {
			t.Fatalf("expanding %q reported %s missing", expr, x.missing)
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			t.Fatalf("the expanded expression %q does not compile: %v", expr, err)
		}
		if lit, whole := re.LiteralPrefix(); !whole || lit != prefix+value+suffix {
			t.Fatalf("the expression %q is %q (literal %v), want exactly %q", expr, lit, whole, prefix+value+suffix)
		}

		x.missing = ""
		tmpl := prefix + "{no_such_value}" + suffix
		if got := x.text(tmpl, nil); x.missing == "" {
			t.Fatalf("expanding %q gave %q and no missing placeholder", tmpl, got)
		}
	})
}
