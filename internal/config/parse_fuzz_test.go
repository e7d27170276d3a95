package config

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// problemLine is one problem of a Parse error: the file, a line number, then
// what is wrong (usually the key first).
var problemLine = regexp.MustCompile(`^sealmark\.yaml:(\d+): \S`)

// FuzzParse parses any sealmark.yaml: no panic, the same outcome twice,
// and every problem on a line of its own naming the file and a line that
// exists (or the line just past the end), without control characters that
// could break the line or a terminal; on success every key's recorded line
// exists too.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		s, lines, err := Parse("sealmark.yaml", data)
		s2, lines2, err2 := Parse("sealmark.yaml", data)
		if fmt.Sprint(err) != fmt.Sprint(err2) || fmt.Sprintf("%+v %v", s, lines) != fmt.Sprintf("%+v %v", s2, lines2) {
			t.Fatalf("two parses differ: %v / %v", err, err2)
		}
		last := yamlLines(data)
		if err != nil {
			if s != nil {
				t.Errorf("settings %+v returned with the error %v", s, err)
			}
			for problem := range strings.SplitSeq(err.Error(), "\n") {
				m := problemLine.FindStringSubmatch(problem)
				if m == nil {
					t.Fatalf("problem %q does not start with FILE:LINE: (error %q)", problem, err)
				}
				if n, _ := strconv.Atoi(m[1]); n < 1 || n > last {
					t.Fatalf("problem %q names line %d; the file has %d", problem, n, last)
				}
				if i := strings.IndexFunc(problem, unicode.IsControl); i >= 0 {
					t.Fatalf("problem %q holds a control character at byte %d", problem, i)
				}
			}
			return
		}
		if s == nil {
			t.Fatal("no settings and no error")
		}
		for key, n := range lines {
			if n < 1 || n > last {
				t.Fatalf("key %s recorded at line %d; the file has %d", key, n, last)
			}
		}
	})
}

// yamlLines counts lines as YAML does: CRLF, CR, LF, NEL, LS and PS each
// end one.
func yamlLines(data []byte) int {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	n := 1
	for _, brk := range []string{"\n", "\r", "\u0085", "\u2028", "\u2029"} {
		n += bytes.Count(data, []byte(brk))
	}
	return n
}
