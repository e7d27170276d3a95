package session

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/packs"
)

// cutTimeout is the wait each request of these tests is given: a failure
// "at once" must come well within it.
const cutTimeout = 30 * time.Second

// startHuge starts the test binary as hugeChild (cut_child_test.go).
func startHuge(t *testing.T) *Session {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	proc, err := launch.Start(launch.Spec{Path: self, Env: []string{"SESSION_TEST_CHILD=huge"}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s := Open(proc)
	t.Cleanup(func() {
		s.Close()
		proc.Stop(time.Second, time.Second)
	})
	return s
}

// list asks for tools/list with the cursor naming the child's answer, and
// returns the error and how long the request took.
func list(ctx context.Context, s *Session, cursor string) (*packs.Response, error, time.Duration) {
	start := time.Now()
	resp, err := s.Request(ctx, "tools/list", map[string]any{"cursor": cursor})
	return resp, err, time.Since(start)
}

// TestHugeAnswerFailsAtOnce: an answer over the 8 MiB message limit fails
// its request at once, with a TooLargeError that names it, whether the id
// comes before the payload, after it (the one request pending), or the
// line never ends; the session goes on serving after a line that ended.
// A 7 MiB answer, and a 9 MiB notification before an ordinary answer, are
// read as they are.
func TestHugeAnswerFailsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: answers past the 8 MiB message limit")
	}
	const want = "the answer to tools/list was over the 8 MiB message limit, so the harness stopped reading it"
	for _, mode := range []string{"id-first", "id-last", "endless"} {
		t.Run(mode, func(t *testing.T) {
			s := startHuge(t)
			ctx, cancel := context.WithTimeout(context.Background(), cutTimeout)
			defer cancel()
			_, err, took := list(ctx, s, mode)
			var large *packs.TooLargeError
			if !errors.As(err, &large) || err.Error() != want || large.Request != "tools/list" || large.Limit != launch.DefaultMaxMessage {
				t.Fatalf("got %v (%T), want %q", err, err, want)
			}
			if took > cutTimeout/3 {
				t.Errorf("the request took %s of its %s", took, cutTimeout)
			}
			if mode == "endless" {
				return // the line still runs: nothing after it can be read
			}
			if _, err := s.Request(ctx, "ping", nil); err != nil {
				t.Errorf("ping after the huge answer: %v", err)
			}
		})
	}
	for _, mode := range []string{"legal", "notification"} {
		t.Run(mode, func(t *testing.T) {
			s := startHuge(t)
			ctx, cancel := context.WithTimeout(context.Background(), cutTimeout)
			defer cancel()
			resp, err, _ := list(ctx, s, mode)
			if err != nil || resp.Error != nil || len(resp.Result) < len(`{"tools":[]}`) {
				t.Fatalf("got %v, %v; want the answer", resp, err)
			}
		})
	}
}

// TestHugeAnswerWithoutIDAndTwoPending: a huge answer whose head holds no
// id, while two requests are pending, fails neither: which one it answers
// is unknown, so both wait for their deadlines.
func TestHugeAnswerWithoutIDAndTwoPending(t *testing.T) {
	s := startHuge(t)
	ctx, cancel := context.WithTimeout(context.Background(), cutTimeout)
	defer cancel()
	held := make(chan error, 1)
	go func() {
		_, err := s.Request(ctx, "hold", nil) // never answered
		held <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		s.mu.Lock()
		n := len(s.pending)
		s.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the held request never became pending")
		}
	}
	short, cancelShort := context.WithTimeout(ctx, 2*time.Second)
	defer cancelShort()
	_, err, _ := list(short, s, "id-last")
	if !errors.Is(err, packs.ErrNoAnswer) {
		t.Errorf("tools/list: got %v, want %v at its own deadline", err, packs.ErrNoAnswer)
	}
	cancel()
	if err := <-held; err == nil || errors.As(err, new(*packs.TooLargeError)) {
		t.Errorf("the held request: got %v, want it to end with its context", err)
	}
}
