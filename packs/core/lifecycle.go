package core

import (
	"fmt"
	"strings"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// ExitGrace is how long a server has to exit after its stdin closes.
var ExitGrace = 5 * time.Second

var exitOnStdinClose = packs.Probe{
	ID:       "CORE-EXIT-ON-STDIN-CLOSE",
	Name:     "exits-on-stdin-close",
	Severity: packs.Medium,
	CWE:      "CWE-404",
	Doc:      "a stdio server must exit when its stdin closes",
	Run: func(p *packs.Pass) {
		if !stdio(p) {
			return
		}
		if !p.Server.Alive() {
			p.Inconclusive("the server had already exited (%s)", p.Server.ExitStatus())
			return
		}
		if err := p.Server.CloseStdin(); err != nil {
			p.Inconclusive("could not close the server's stdin: %v", err)
			return
		}
		if !p.Server.WaitExit(ExitGrace) {
			// The calls before it go in the evidence, not the message: which
			// calls had been answered depends on timing, and the message
			// makes the fingerprint.
			f := p.Reportf("the server was still running %s after its stdin closed", ExitGrace)
			f.Evidencef("process", "alive %s after stdin EOF; the harness had to signal it", ExitGrace)
			if a := strings.TrimPrefix(after(p), "; "); a != "" {
				f.Evidencef("response", "%s", a)
			}
			return
		}
		p.Notef("exited: %s", p.Server.ExitStatus())
	},
}

var stdoutOnly = packs.Probe{
	ID:       "CORE-STDOUT-JSONRPC",
	Name:     "stdout-jsonrpc-only",
	Severity: packs.Medium,
	Doc:      "a stdio server must write nothing but newline-delimited JSON-RPC messages to stdout",
	Run: func(p *packs.Pass) {
		if !stdio(p) {
			return
		}
		frames := p.Server.Frames(0)
		bad := 0
		for _, f := range frames {
			what := ""
			switch f.Kind {
			case "json":
				if !jsonRPC(f.Data) {
					what = "JSON that is not a JSON-RPC 2.0 message"
				}
			case "blank":
				what = "a blank line"
			case "garbage":
				what = "a line that is not JSON"
			case "oversize":
				what = fmt.Sprintf("a line of %d bytes, over the harness's limit", f.Size)
				if req := p.Server.Describe(f); req != "" {
					what += " (the answer to " + req + ")"
				}
			case "too-deep":
				what = fmt.Sprintf("JSON nested deeper than %s levels, past the JSON decoder's limit, so the harness refused it", count(packs.MaxJSONDepth))
				if req := p.Server.Describe(f); req != "" {
					what += " (the answer to " + req + ")"
				}
			}
			if what == "" {
				continue
			}
			bad++
			if bad > 5 {
				continue // five findings show the pattern; the rest are counted
			}
			p.Reportf("stdout line %d is %s", f.Seq+1, what).Evidencef("stdout", "line %d (%d bytes): %s", f.Seq+1, f.Size, brief(f.Data))
		}
		if bad > 5 {
			p.Notef("%d further stdout lines were not JSON-RPC", bad-5)
		}
		p.Notef("%d stdout lines checked", len(frames))
	},
}

// after names the calls before this point, for a finding about what the
// server does from then on: "; the last tool calls it answered: ...".
func after(p *packs.Pass) string {
	calls, last := lastCalls(p, 3)
	switch {
	case len(calls) == 0 && last == "":
		return ""
	case len(calls) == 0:
		return "; it had answered no tool call, the last request was " + last
	}
	s := "; the last tool calls it answered: " + strings.Join(calls, ", ")
	if last != "" && last != calls[len(calls)-1] {
		s += " (then " + last + ")"
	}
	return s
}
