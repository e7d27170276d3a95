package process

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestParseStat(t *testing.T) {
	tail := " 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 98765 1000 2000"
	tests := []struct {
		name string
		line string
		want stat
		ok   bool
	}{
		{"plain", "42 (sleep) S 7 42 5" + tail, stat{pid: 42, ppid: 7, pgid: 42, sid: 5, state: 'S', comm: "sleep", start: 98765}, true},
		{"comm with spaces and parentheses", "43 (a) b (c) Z 7 8 9" + tail, stat{pid: 43, ppid: 7, pgid: 8, sid: 9, state: 'Z', comm: "a) b (c", start: 98765}, true},
		{"comm that looks like fields", "44 () R 1 2 3 4 5) S 10 11 12" + tail, stat{pid: 44, ppid: 10, pgid: 11, sid: 12, state: 'S', comm: ") R 1 2 3 4 5", start: 98765}, true},
		{"truncated", "45 (x) S 1 2 3 0 0", stat{}, false},
		{"no parenthesis", "46 x S 1 2 3" + tail, stat{}, false},
		{"bad pid", "x (x) S 1 2 3" + tail, stat{}, false},
		{"bad state", "47 (x) SS 1 2 3" + tail, stat{}, false},
		{"bad start", "48 (x) S 1 2 3 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 -5", stat{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseStat([]byte(tt.line + "\n"))
			if ok != tt.ok || got != tt.want {
				t.Errorf("parseStat(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseCmdline(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		truncated bool
		want      []string
	}{
		{"empty", "", false, nil},
		{"one", "sleep\x00", false, []string{"sleep"}},
		{"several", "sh\x00-c\x00echo a b\x00", false, []string{"sh", "-c", "echo a b"}},
		{"no final NUL", "sh\x00-c", false, []string{"sh", "-c"}},
		{"empty argument kept", "a\x00\x00b\x00", false, []string{"a", "", "b"}},
		{"truncated drops the partial argument", "curl\x00-H\x00Authorization: Bearer sk-12", true, []string{"curl", "-H"}},
		{"truncated inside the first argument", "aaaaaaaa", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseCmdline([]byte(tt.in), tt.truncated); !slices.Equal(got, tt.want) {
				t.Errorf("parseCmdline(%q, %v) = %q, want %q", tt.in, tt.truncated, got, tt.want)
			}
		})
	}
}

func TestShellLine(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"ls", "-la", "/tmp/x_y.txt"}, "ls -la /tmp/x_y.txt"},
		{[]string{"sh", "-c", "echo hi; rm -rf /"}, `sh -c "echo hi; rm -rf /"`},
		{[]string{"a", ""}, `a ""`},
		{[]string{"x", "line\nbreak"}, `x "line\nbreak"`},
	}
	for _, tt := range tests {
		if got := shellLine(tt.argv); got != tt.want {
			t.Errorf("shellLine(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
	long := shellLine([]string{"echo", strings.Repeat("é", 400)})
	if len(long) > maxShown+len("…")+1 || !strings.HasSuffix(long, "…") {
		t.Errorf("shellLine of a long argv = %d bytes %q..., want at most %d bytes ending in …", len(long), long[:20], maxShown)
	}
	if !strings.HasPrefix(long, `echo "`) || !utf8Valid(long) {
		t.Errorf("shellLine cut a UTF-8 sequence: %q", long)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestArgvJSON(t *testing.T) {
	if got := argvJSON(nil); got != "[]" {
		t.Errorf("argvJSON(nil) = %s, want []", got)
	}
	if got := argvJSON([]string{"a b", `"q"`}); got != `["a b","\"q\""]` {
		t.Errorf("argvJSON = %s", got)
	}
}

func TestMarker(t *testing.T) {
	a, b := Marker(), Marker()
	if !regexp.MustCompile(`^SEALMARK_RUN=[0-9a-f]{16}$`).MatchString(a) {
		t.Errorf("Marker() = %q, want SEALMARK_RUN=<16 hex>", a)
	}
	if a == b {
		t.Errorf("two markers are equal: %q", a)
	}
}
