package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// Raw exchanges: the probes that judge how a server answers bytes the
// session would never send (its own ids, malformed lines, batches) write
// them with WriteRaw and read the answers from the server's frames,
// matched to the lines by id (answers.go). Each line is followed by a
// barrier, a request the server answers, so that a server that broke on
// the line is told at once.

// Why an exchange did not complete.
var (
	errNoRaw   = errors.New("this transport takes no raw input")
	errExited  = errors.New("the server exited")
	errStalled = errors.New("the server stopped answering")
)

// shortWait bounds a wait for something a healthy server does at once.
func shortWait(p *packs.Pass) time.Duration { return min(p.CallTimeout, 2*time.Second) }

const markKey = "core.frame-mark"

// frameMark returns the sequence number the server's next frame will get.
func frameMark(p *packs.Pass) int {
	m, _ := p.Shared[markKey].(int)
	if fs := p.Server.Frames(m); len(fs) > 0 {
		m = fs[len(fs)-1].Seq + 1
	}
	p.Shared[markKey] = m
	return m
}

// stdio marks the probe not applicable and returns false unless the server
// speaks stdio: raw lines, stdin and stdout framing are stdio's alone.
func stdio(p *packs.Pass) bool {
	if t := p.Server.Transport(); t != "stdio" {
		p.NotApplicable("a stdio check; this server speaks %s", t)
		return false
	}
	return true
}

// ready marks the probe inconclusive and returns false when the server has
// already exited, so probes after a crash do not blame the server again.
func ready(p *packs.Pass) bool {
	if p.Server.Alive() {
		return true
	}
	p.Inconclusive("the server had already exited (%s)", exitOf(p))
	return false
}

// barrier sends a request the server answers and waits for the answer.
func barrier(p *packs.Pass) error {
	method := liveness(p)
	if _, err := p.Request(method, map[string]any{}); err != nil {
		if !p.Server.Alive() || errors.Is(err, packs.ErrClosed) {
			p.Server.WaitExit(shortWait(p))
			return fmt.Errorf("%w (%s)", errExited, exitOf(p))
		}
		return fmt.Errorf("%w: %s got no answer within %s", errStalled, method, p.CallTimeout)
	}
	return nil
}

// broken reports an exchange that did not complete, blaming the input
// described by after, and returns true when err was one.
func broken(p *packs.Pass, err error, after string) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, errNoRaw):
		p.NotApplicable("needs raw stdin, which this transport does not have: %v", err)
	case errors.Is(err, errExited):
		f := p.Reportf("the server exited after %s (%s)", after, exitOf(p))
		f.Severity = packs.High
		f.Evidencef("process", "exit: %s", exitOf(p))
	default:
		f := p.Reportf("the server stopped answering after %s", after)
		f.Severity = max(p.Probe.Severity, packs.Medium)
		f.Evidencef("response", "%v", err)
	}
	return true
}

// message is one frame read as JSON-RPC.
type message struct {
	frame  packs.Frame
	fields map[string]json.RawMessage   // nil unless the frame is a JSON object
	batch  []map[string]json.RawMessage // the elements of a JSON array of objects
}

func parse(f packs.Frame) message {
	m := message{frame: f}
	data := bytes.TrimSpace(f.Data)
	switch {
	case len(data) == 0:
	case data[0] == '{' && f.Kind == "oversize":
		m.fields = f.Head() // only the line's start is kept
	case data[0] == '{':
		_ = json.Unmarshal(data, &m.fields)
	case data[0] == '[':
		var elems []map[string]json.RawMessage
		if json.Unmarshal(data, &elems) == nil && len(elems) > 0 {
			m.batch = elems
		}
	}
	return m
}

// id is the response's id as sent, or nil.
func (m message) id() json.RawMessage { return m.fields["id"] }

// code is the error code of an error response, with ok false for anything
// else.
func (m message) code() (code int, ok bool) {
	var e struct {
		Code *int `json:"code"`
	}
	if raw := m.fields["error"]; raw == nil || json.Unmarshal(raw, &e) != nil || e.Code == nil {
		return 0, false
	}
	return *e.Code, true
}

// brief describes a response for a message: "error -32600", "a result",
// "a batch of 2 responses".
func (m message) brief() string {
	if m.batch != nil {
		return fmt.Sprintf("a batch of %d responses", len(m.batch))
	}
	if code, ok := m.code(); ok {
		return fmt.Sprintf("error %d", code)
	}
	if m.fields["result"] != nil {
		return "a result"
	}
	return "a malformed response"
}

// sameID reports whether two JSON ids are the same value of the same type:
// equal strings, or numbers of equal value however written.
func sameID(a, b json.RawMessage) bool {
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	if a[0] == '"' || b[0] == '"' {
		var sa, sb string
		return a[0] == b[0] && json.Unmarshal(a, &sa) == nil && json.Unmarshal(b, &sb) == nil && sa == sb
	}
	var na, nb json.Number
	if json.Unmarshal(a, &na) != nil || json.Unmarshal(b, &nb) != nil {
		return false
	}
	ra, oka := new(big.Rat).SetString(na.String())
	rb, okb := new(big.Rat).SetString(nb.String())
	return oka && okb && ra.Cmp(rb) == 0
}

// oneLine collapses the white space of a server's text (an error message
// with a JSON dump in it, say) for a one-line finding.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
