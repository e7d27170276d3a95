package core

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSSEData(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"event: message\r\ndata: {\"id\":1}\r\n\r\n", `{"id":1}`},
		{"data:{}\n", "{}"},
		// A message over several data lines is one event (the SSE rule).
		{"event: message\ndata: {\ndata:   \"id\": 1\ndata: }\n\ndata: {\"id\":2}\n\n", "{\n  \"id\": 1\n}"},
		{": comment\nid: 4\ndata: [1]\n\ndata: [2]\n", "[1]"},
		{"no events here\n", "no events here\n"},
	} {
		if got := sseData(tc.body); got != tc.want {
			t.Errorf("sseData(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}

func TestBriefKeepsCharactersWhole(t *testing.T) {
	long := "x" + strings.Repeat("é", 150) // 301 bytes: byte 200 is inside an é
	got := brief([]byte(long))
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > 200+len("…") {
		t.Errorf("brief of %d bytes = %q: want valid UTF-8 of at most 200 bytes and an ellipsis", len(long), got)
	}
}
