package session

import (
	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/packs"
)

// An answer too long to deliver (a stdout line past launch.Spec.MaxMessage)
// never reaches the MCP client, so the request it answers would wait out
// its whole timeout, a start its whole start timeout, for an answer that
// already came. The framer tells the session as soon as such a line passes
// the limit, and the session fails that request at once with a
// packs.TooLargeError. An answer nested deeper than the decoder reads
// (launch.MaxDepth) is refused whole the same way, and told the same way:
// its request fails at once with a packs.TooDeepError.

// cut fails the pending request a cut stdout line answers, from the line's
// head (its first 4 KiB): the request whose id the head holds, when it
// holds one; when the id is not in the head (placed after the huge
// payload, or null), the one request pending, only if exactly one is: with
// two or more pending, failing one on a guess could blame the wrong one,
// so they all wait for their answers or their timeouts. A head that is no
// JSON object, or holds a method (a request or notification from the
// server), fails nothing.
func (s *Session) cut(c launch.Cut) {
	m := packs.Frame{Kind: "oversize", Data: c.Head}.Head()
	if m == nil || m["method"] != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := string(m["id"])
	if key == "" || key == "null" {
		if len(s.pending) != 1 {
			return
		}
		for k := range s.pending {
			key = k
		}
	}
	fail, ok := s.pending[key]
	if !ok {
		return
	}
	if c.Depth > 0 {
		fail(&packs.TooDeepError{Request: s.described[key], Limit: c.Depth})
		return
	}
	fail(&packs.TooLargeError{Request: s.described[key], Limit: int64(c.Limit)})
}
