package capbuf_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/internal/capbuf"
)

func TestBufferKeepsTheFirstMax(t *testing.T) {
	b := capbuf.Buffer{Max: 5}
	for _, s := range []string{"abc", "defg", "hij"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v; want all taken, no error", s, n, err)
		}
	}
	if b.String() != "abcde" || b.Dropped() != 5 || b.Text() != "abcde ... (5 more bytes)" {
		t.Errorf("kept %q, dropped %d, text %q; want abcde, 5", b.String(), b.Dropped(), b.Text())
	}
}

// TestBufferBoundsIOCopy: io.Copy (what exec.Cmd drains a pipe with) goes
// through Write, not a ReadFrom that would take everything.
func TestBufferBoundsIOCopy(t *testing.T) {
	b := capbuf.Buffer{Max: 10}
	src := io.MultiReader(strings.NewReader(strings.Repeat("x", 1<<20)))
	if _, err := io.Copy(&b, src); err != nil {
		t.Fatal(err)
	}
	if len(b.Bytes()) != 10 || b.Dropped() != 1<<20-10 || !bytes.Equal(b.Bytes(), []byte("xxxxxxxxxx")) {
		t.Errorf("kept %d bytes, dropped %d; want 10 and the rest", len(b.Bytes()), b.Dropped())
	}
}
