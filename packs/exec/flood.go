package exec

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/sealmark/sealmark/packs"
)

// floodBytes is what output-flood asks sm-spew for; maxReturned is the
// most of it a response may carry.
const (
	floodBytes  = 100 << 20
	maxReturned = 1 << 20
	// floodSlack is what a tool may add to a capped output in words of
	// its own ("timed out after 10s; stopped", a PID line) before its
	// answer counts as past the cap: a server that caps at Node's 1 MiB
	// and says why is bounded.
	floodSlack = 64 << 10
)

func outputFlood(hints []Hint) packs.Probe {
	return packs.Probe{
		ID: "EXEC-OUTPUT-FLOOD", Name: "output-flood", Severity: packs.Medium, CWE: "CWE-400", Active: true,
		Doc: "a tool must bound the output it returns: 100 MiB from sm-spew may not come back as more than 1 MiB of output (measured as the tool returned it, the decoded text of its result, not the JSON-RPC line around it)",
		Run: func(p *packs.Pass) {
			r := start(p, hints)
			if r == nil {
				return
			}
			for _, t := range r.running() {
				// The answer comes after the timer and what the server
				// spends on a call (bound).
				if r.pace(t) == 0 {
					continue
				}
				// A long timeout: a server that returns what came before
				// its timeout shows what it would return.
				pl := payload{line: fmt.Sprintf("sm-spew %d", floodBytes), timeout: p.CallTimeout * 4 / 5}
				from := nextFrame(p)
				res, took := r.call(t, pl, describe(t, pl))
				if r.dead {
					break
				}
				line := largestFrame(p, from, res == nil)
				// The answer, decoded, when it came; the other lines since
				// the call (a notification carrying the output), decoded
				// when kept whole, and without an answer, estimated from
				// the head of a line too long to keep (see estimated).
				out := returnedSince(p, from, res == nil)
				if res != nil {
					out = more(out, returned(res.Result, res.Error))
				}
				spewed := r.observedProg("sm-spew")
				switch {
				case flooded(out.bytes):
					if res == nil {
						r.unanswered = r.unanswered[:len(r.unanswered)-1]
					}
					p.Reportf("%s returned more than %d MiB of its child's output in one message", describe(t, pl), maxReturned>>20).
						Evidencef("stdout", "%s, in a line of %d bytes", out.how(), line)
				case !spewed && (res == nil || res.Refused()):
					r.failed = append(r.failed, fmt.Sprintf("%s: sm-spew did not run (%s)", t.Name, res.Brief()))
				default:
					p.Notef("%s returned %d bytes of output (a line of %d bytes) after %s", t.Name, out.bytes, line, took.Round(100*time.Millisecond))
				}
			}
			r.finish()
		},
	}
}

// flooded reports whether a message carried more output than the cap and
// the tool's own words around it.
func flooded(n int64) bool { return n > maxReturned+floodSlack }

// output is how much output one message carried: exact when the message
// was decoded, else estimated from the head of a line too long to read.
type output struct {
	bytes    int64
	estimate bool
}

func (o output) how() string {
	if o.estimate {
		return fmt.Sprintf("about %d bytes of output (a line past what the harness reads, estimated from its head)", o.bytes)
	}
	return fmt.Sprintf("%d bytes of output as the tool returned it", o.bytes)
}

func more(a, b output) output {
	if b.bytes > a.bytes {
		return b
	}
	return a
}

// returnedSince is the most output any stdout line since from carried: a
// line the harness kept whole is decoded (returned); with guess, a longer
// one, of which only its head is kept, is estimated (estimated).
func returnedSince(p *packs.Pass, from int, guess bool) output {
	var most output
	for _, f := range p.Server.Frames(from) {
		if len(f.Data) == 0 {
			continue // dropped to keep memory bounded: nothing to measure
		}
		if int64(len(f.Data)) < f.Size {
			if guess {
				most = more(most, estimated(f.Data, f.Size))
			}
			continue
		}
		var m struct {
			Result json.RawMessage `json:"result"`
			Error  *packs.RPCError `json:"error"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(f.Data, &m) != nil {
			continue
		}
		most = more(most, returned(m.Result, m.Error))
		most = more(most, output{bytes: textBytes(m.Params)})
	}
	return most
}

// returned is the output a result (or an error) carries as the tool
// returned it: a tool result's content, each text, resource text and
// base64 data decoded from its JSON string, or its structuredContent's
// strings, whichever is more (a server may send the same output in both);
// any other result, its strings; an error, its message and data's strings.
func returned(result json.RawMessage, e *packs.RPCError) output {
	if e != nil {
		return output{bytes: int64(len(e.Message)) + textBytes(e.Data)}
	}
	var r struct {
		Content    []contentItem   `json:"content"`
		Structured json.RawMessage `json:"structuredContent"`
	}
	if json.Unmarshal(result, &r) != nil || r.Content == nil && r.Structured == nil {
		return output{bytes: textBytes(result)}
	}
	var content int64
	for _, c := range r.Content {
		content += int64(len(c.Text) + len(c.Data))
		if c.Resource != nil {
			content += int64(len(c.Resource.Text) + len(c.Resource.Blob))
		}
	}
	return output{bytes: max(content, textBytes(r.Structured))}
}

// contentItem is what a tool result's content item carries: text, base64
// data (image, audio), or an embedded resource's text or base64 blob.
type contentItem struct {
	Text     string `json:"text"`
	Data     string `json:"data"`
	Resource *struct {
		Text string `json:"text"`
		Blob string `json:"blob"`
	} `json:"resource"`
}

// textBytes is the length of every string value in a JSON value,
// decoded (object keys and the JSON around them do not count).
func textBytes(raw json.RawMessage) int64 {
	if len(raw) == 0 {
		return 0
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return 0
	}
	var n int64
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			n += int64(len(v))
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return n
}

// estimated is the output a line of size bytes carries, of which only
// its head is kept: the head's string bytes, decoded, per byte of the
// head, times the size, halved (the same output may come twice, as
// content and as structuredContent). Output the server escaped heavily
// (control bytes as \u0000, six bytes each) thus counts for what it is,
// not for its line.
func estimated(head []byte, size int64) output {
	if len(head) == 0 {
		return output{}
	}
	var decoded int64
	in := false
	for i := 0; i < len(head); i++ {
		c := head[i]
		switch {
		case !in:
			in = c == '"'
		case c == '"':
			in = false
		case c == '\\' && i+1 < len(head) && head[i+1] == 'u' && i+5 < len(head):
			if r, err := strconv.ParseUint(string(head[i+2:i+6]), 16, 32); err == nil {
				decoded += int64(max(utf8.RuneLen(rune(r)), 1))
			} else {
				decoded++
			}
			i += 5
		case c == '\\':
			decoded++
			i++
		default:
			decoded++
		}
	}
	return output{bytes: size * decoded / int64(len(head)) / 2, estimate: true}
}

// nextFrame is the sequence number the server's next stdout line gets.
func nextFrame(p *packs.Pass) int {
	fs := p.Server.Frames(0)
	if len(fs) == 0 {
		return 0
	}
	return fs[len(fs)-1].Seq + 1
}

// largestFrame is the size of the largest stdout line since from. When
// the call got no answer, a flood may still be on its way: it waits up to
// the call timeout more for a line to end.
func largestFrame(p *packs.Pass, from int, wait bool) int64 {
	deadline := time.Now().Add(p.CallTimeout)
	for {
		var biggest int64
		for _, f := range p.Server.Frames(from) {
			biggest = max(biggest, f.Size)
		}
		if !wait || biggest > maxReturned || time.Now().After(deadline) || p.Ctx.Err() != nil {
			return biggest
		}
		time.Sleep(100 * time.Millisecond)
	}
}
