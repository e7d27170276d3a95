package mcpwire

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLineReader(t *testing.T) {
	long := strings.Repeat("y", MaxLine+1)
	type line struct {
		text    string
		tooLong bool
	}
	for _, tc := range []struct {
		name, in string
		want     []line
	}{
		{"lines", "a\nbb\n\nccc\n", []line{{"a", false}, {"bb", false}, {"", false}, {"ccc", false}}},
		{"crlf", "a\r\nb\n", []line{{"a", false}, {"b", false}}},
		{"unterminated last line", "a\nb", []line{{"a", false}, {"b", false}}},
		{"too long, then short", long + "\nok\n", []line{{"", true}, {"ok", false}}},
		{"too long with crlf", long + "\r\nok\n", []line{{"", true}, {"ok", false}}},
		{"exactly the limit with crlf", long[1:] + "\r\n", []line{{long[1:], false}}},
		{"too long, unterminated", "a\n" + long, []line{{"a", false}, {"", true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := NewLineReader(strings.NewReader(tc.in))
			var got []line
			for {
				text, tooLong, err := lr.Next()
				if err != nil {
					if !errors.Is(err, io.EOF) {
						t.Fatalf("after %d lines: %v, want io.EOF", len(got), err)
					}
					break
				}
				got = append(got, line{string(text), tooLong})
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d lines, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("line %d: got %.20q (tooLong %v), want %.20q (tooLong %v)", i, got[i].text, got[i].tooLong, tc.want[i].text, tc.want[i].tooLong)
				}
			}
		})
	}
	boom := errors.New("boom")
	lr := NewLineReader(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)))
	for i, want := range []string{"a", "b"} {
		if text, _, err := lr.Next(); err != nil || string(text) != want {
			t.Errorf("line %d: got %q, %v; want %q", i, text, err, want)
		}
	}
	for range 2 {
		if _, _, err := lr.Next(); !errors.Is(err, boom) {
			t.Errorf("after the lines: got %v, want the read error", err)
		}
	}
}
