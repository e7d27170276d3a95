package environ

import (
	"strings"
	"testing"
)

// expandModel is Expand written as a scan: a placeholder is "{", one or
// more of a-z and "_", then "}"; each is replaced once, left to right, by its
// value, and a value is never scanned. unknown is the first placeholder vars
// lacks.
func expandModel(s string, vars map[string]string) (out, unknown string, n int) {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i + 1
		for s[i] == '{' && j < len(s) && (s[j] == '_' || 'a' <= s[j] && s[j] <= 'z') {
			j++
		}
		if s[i] != '{' || j == i+1 || j == len(s) || s[j] != '}' {
			b.WriteByte(s[i])
			i++
			continue
		}
		name := s[i+1 : j]
		n++
		if v, ok := vars[name]; ok {
			b.WriteString(v)
		} else {
			if unknown == "" {
				unknown = s[i : j+1]
			}
			b.WriteString(s[i : j+1])
		}
		i = j + 1
	}
	return b.String(), unknown, n
}

// FuzzExpand expands any text with any values for {sandbox} and {token}
// and checks Expand against expandModel: each placeholder replaced once and
// the values taken as written (a value holding "{token}" is not expanded
// again), so the output grows by at most the values' length per
// placeholder; an unknown placeholder is an error naming it that leaves the
// text as it was and quotes no value. With path-like values (not empty, no
// braces, a byte outside a-z and "_") expanding the output again changes
// nothing.
func FuzzExpand(f *testing.F) {
	f.Fuzz(func(t *testing.T, s, sandbox, token string) {
		vars := map[string]string{"sandbox": sandbox, "token": token, "port": "8080"}
		got, err := Expand(s, vars)
		want, unknown, n := expandModel(s, vars)
		if unknown != "" {
			wantErr := "unknown placeholder " + unknown + " (known: {port}, {sandbox}, {token})"
			if err == nil || err.Error() != wantErr || got != s {
				t.Fatalf("Expand(%q) = %q, %v; want the text as it was and the error %q", s, got, err, wantErr)
			}
			return
		}
		if err != nil || got != want {
			t.Fatalf("Expand(%q) = %q, %v; want %q", s, got, err, want)
		}
		if limit := len(s) + n*max(len(sandbox), len(token), len("8080")); len(got) > limit {
			t.Fatalf("Expand(%q) grew to %d bytes, over %d", s, len(got), limit)
		}
		if pathLike(sandbox) && pathLike(token) {
			if again, err := Expand(got, vars); err != nil || again != got {
				t.Fatalf("Expand(Expand(%q)) = %q, %v; want %q unchanged", s, again, err, got)
			}
		}
	})
}

func pathLike(v string) bool {
	return v != "" && !strings.ContainsAny(v, "{}") &&
		strings.ContainsFunc(v, func(r rune) bool { return r != '_' && (r < 'a' || r > 'z') })
}
