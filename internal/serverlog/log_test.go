package serverlog_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sealmark/sealmark/internal/serverlog"
)

func TestLogHoldsEverythingBelowCapacity(t *testing.T) {
	l := serverlog.New(64)
	for _, s := range []string{"one\n", "two\n", "thr", "ee\n"} {
		n, err := l.Write([]byte(s))
		if err != nil || n != len(s) {
			t.Fatalf("Write(%q) = %d, %v; want %d, nil", s, n, err, len(s))
		}
	}
	if got, want := string(l.Bytes()), "one\ntwo\nthree\n"; got != want {
		t.Errorf("Bytes() = %q, want %q", got, want)
	}
	if got := l.Total(); got != 14 {
		t.Errorf("Total() = %d, want 14", got)
	}
	if got := l.Lost(); got != 0 {
		t.Errorf("Lost() = %d, want 0", got)
	}
}

func TestLogDropsOldestWhenFull(t *testing.T) {
	l := serverlog.New(10)
	var all bytes.Buffer
	// Writes of every size, including ones equal to and larger than the ring.
	for i, size := range []int{3, 7, 1, 9, 10, 4, 25, 2, 11, 6} {
		p := bytes.Repeat([]byte{byte('a' + i)}, size)
		p[len(p)-1] = byte('0' + i)
		_, _ = l.Write(p)
		all.Write(p)
		want := all.Bytes()
		if len(want) > 10 {
			want = want[len(want)-10:]
		}
		if got := string(l.Bytes()); got != string(want) {
			t.Fatalf("after write %d (size %d): Bytes() = %q, want %q", i, size, got, want)
		}
		if got := l.Total(); got != int64(all.Len()) {
			t.Fatalf("after write %d: Total() = %d, want %d", i, got, all.Len())
		}
		if got, want := l.Lost(), int64(all.Len()-len(want)); got != want {
			t.Fatalf("after write %d: Lost() = %d, want %d", i, got, want)
		}
	}
}

func TestLogWriteLargerThanCapacityKeepsItsEnd(t *testing.T) {
	l := serverlog.New(4)
	_, _ = l.Write([]byte("abcdefgh"))
	if got := string(l.Bytes()); got != "efgh" {
		t.Errorf("Bytes() = %q, want %q", got, "efgh")
	}
	if got := l.Lost(); got != 4 {
		t.Errorf("Lost() = %d, want 4", got)
	}
}

func TestLogDefaultCapacity(t *testing.T) {
	l := serverlog.New(0)
	_, _ = l.Write(make([]byte, serverlog.DefaultCapacity+5))
	if got := len(l.Bytes()); got != serverlog.DefaultCapacity {
		t.Errorf("len(Bytes()) = %d, want %d", got, serverlog.DefaultCapacity)
	}
	if got := l.Lost(); got != 5 {
		t.Errorf("Lost() = %d, want 5", got)
	}
}

func TestLogBytesIsACopy(t *testing.T) {
	l := serverlog.New(8)
	_, _ = l.Write([]byte("abc"))
	b := l.Bytes()
	b[0] = 'X'
	if got := string(l.Bytes()); got != "abc" {
		t.Errorf("Bytes() after changing a copy = %q, want %q", got, "abc")
	}
}

func TestTail(t *testing.T) {
	tests := []struct {
		name     string
		capacity int
		writes   []string
		n        int
		want     string
	}{
		{"n covers everything", 100, []string{"a\nb\n"}, 50, "a\nb\n"},
		{"stream start without newline", 100, []string{"partial"}, 50, "partial"},
		{"cut at a line start", 100, []string{"first line\nsecond\n"}, 10, "second\n"},
		{"starts exactly at a line start", 100, []string{"first\nsecond\n"}, 7, "second\n"},
		{"no line start inside", 100, []string{"one long line without end"}, 6, "ut end"},
		{"only the final newline inside", 100, []string{"aaaa\nbbbbbbbb\n"}, 5, "bbbb\n"},
		{"zero", 100, []string{"abc\n"}, 0, ""},
		{"wrapped mid-line", 8, []string{"0123456789\nab\n"}, 100, "ab\n"},
		{"wrapped at a line start", 8, []string{"012345\n", "abcdefg\n"}, 100, "abcdefg\n"},
		{"wrapped by a small write mid-line", 8, []string{"abcdefg\n", "xy"}, 100, "xy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := serverlog.New(tt.capacity)
			for _, w := range tt.writes {
				_, _ = l.Write([]byte(w))
			}
			if got := l.Tail(tt.n); got != tt.want {
				t.Errorf("Tail(%d) = %q, want %q", tt.n, got, tt.want)
			}
		})
	}
}

func TestTailAfterWrapFollowsDroppedNewline(t *testing.T) {
	l := serverlog.New(6)
	_, _ = l.Write([]byte("abc\n"))
	_, _ = l.Write([]byte("defghi")) // drops exactly "abc\n", so "de..." starts a line
	if got := l.Tail(100); got != "defghi" {
		t.Errorf("Tail(100) = %q, want %q", got, "defghi")
	}
}

func TestLogConcurrentWriters(t *testing.T) {
	l := serverlog.New(1000)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 200 {
				_, _ = fmt.Fprintf(l, "writer %d line %d\n", w, i)
				_ = l.Tail(50)
			}
		})
	}
	wg.Wait()
	held := string(l.Bytes())
	if len(held) != 1000 {
		t.Fatalf("held %d bytes, want 1000", len(held))
	}
	if got, want := l.Lost(), l.Total()-1000; got != want {
		t.Errorf("Lost() = %d, want %d", got, want)
	}
	// Each Write is atomic, so every complete line held is one writer's line.
	lines := strings.Split(held, "\n")
	for _, line := range lines[1 : len(lines)-1] {
		var w, i int
		if _, err := fmt.Sscanf(line, "writer %d line %d", &w, &i); err != nil {
			t.Errorf("line %q is not one writer's line: %v", line, err)
		}
	}
}
