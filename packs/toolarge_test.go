package packs

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestTooLargeWords: an answer past the message limit says which request
// it answered, whether it was an event stream, and the limit; Unanswered
// says it was an answer over the limit, not a wait, and not for other
// errors.
func TestTooLargeWords(t *testing.T) {
	for _, c := range []struct {
		err  TooLargeError
		want string
	}{
		{TooLargeError{Request: "tools/list", Limit: 8 << 20}, "the answer to tools/list was over the 8 MiB message limit, so the harness stopped reading it"},
		{TooLargeError{Request: "initialize", Stream: true, Limit: 4 << 10}, "an event in the answer to initialize was over the 4 KiB message limit, so the harness stopped reading it"},
		{TooLargeError{Stream: true, Limit: 1000}, "an event in the event stream was over the 1000 bytes message limit, so the harness closed the stream"},
		{TooLargeError{Limit: 8 << 20}, "an answer was over the 8 MiB message limit, so the harness stopped reading it"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	large := fmt.Errorf("tools/list: %w", &TooLargeError{Stream: true, Limit: 8 << 20})
	if got, want := Unanswered(large, 10*time.Second), "an answer over the 8 MiB message limit, which the harness stopped reading"; got != want {
		t.Errorf("Unanswered(%v) = %q, want %q", large, got, want)
	}
	if got := Unanswered(fmt.Errorf("tools/list: %w", ErrNoAnswer), 10*time.Second); got != "no answer within 10s" {
		t.Errorf("Unanswered(no answer) = %q", got)
	}
	if got := Unanswered(errors.New("tools/list: boom"), time.Second); got != "no answer but tools/list: boom" {
		t.Errorf("Unanswered(other) = %q", got)
	}
}
