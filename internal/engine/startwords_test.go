package engine

import "testing"

func TestStartWordsOnce(t *testing.T) {
	for in, want := range map[string]string{
		"initialize: initialize: transport error after 0s: failed to send request: failed to send request: Post x: EOF": "initialize: transport error after 0s: failed to send request: Post x: EOF",
		"server/discover: server/discover: context deadline exceeded":                                                   "server/discover: context deadline exceeded",
		"a: b: a: b": "a: b: a: b",
	} {
		if got := oncePerPrefix(in); got != want {
			t.Errorf("oncePerPrefix(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"exit status 2":  "exited with status 2",
		"signal: killed": "was ended by signal killed",
		"still running":  "exited (still running)",
	} {
		if got := exitWords(in); got != want {
			t.Errorf("exitWords(%q) = %q, want %q", in, got, want)
		}
	}
}
