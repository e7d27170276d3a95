package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
)

// progressWidth bounds the live line, so it never wraps on an 80-column
// terminal (a wrapped line cannot be redrawn in place).
const progressWidth = 79

// newProgress reports a run's progress on w, which must be stderr: never
// stdout or a file, which hold the reports.
//
//   - quiet: nothing.
//   - terminal: one live line per pack, redrawn in place as probes finish
//     ("core 3/54 secret-echo pass  1.2s"), ended when the pack's last probe
//     has reported, the next pack starts or the run ends (close).
//   - otherwise (CI logs): plain lines, one when a pack starts and one per
//     finished probe, no control characters.
//
// planned is how many results one start of a pack reports (the count's
// total; engine.Engine.Planned), 0 when unknown. A count never passes its
// total: a pack started once per role counts each start from 1 again.
func newProgress(w io.Writer, terminal, quiet bool, planned func(pack string) int) *progressState {
	if planned == nil {
		planned = func(string) int { return 0 }
	}
	return &progressState{w: w, terminal: terminal, quiet: quiet, planned: planned, start: time.Now(), done: map[string]int{}}
}

// hooks are the engine's hooks that report to p; none when quiet.
func (p *progressState) hooks() engine.Hooks {
	if p.quiet {
		return engine.Hooks{}
	}
	return engine.Hooks{Pack: p.pack, Probe: p.probe}
}

// close ends the live line, if one is open, before the report is written:
// a last pack that did not apply leaves its "starting" line open.
func (p *progressState) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.end()
}

// progressState is the state the hooks share. Packs that run at once
// (--jobs) report from several goroutines: the mutex keeps the lines
// whole, and each pack keeps its own count.
type progressState struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	quiet    bool
	planned  func(pack string) int
	start    time.Time
	name     string         // the pack last shown
	done     map[string]int // per pack, probes of its current start that reported
	total    int            // results a start of the shown pack reports; 0 when unknown
	open     bool           // a live line is on the screen without its newline
}

func (p *progressState) pack(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.end()
	p.name, p.total = name, p.planned(name)
	p.done[name] = 0
	count := ""
	if p.total > 0 {
		count = fmt.Sprintf(" (%d probes)", p.total)
	}
	if p.terminal {
		p.draw(fmt.Sprintf("sealmark: %s%s starting", name, count))
		return
	}
	fmt.Fprintf(p.w, "sealmark: pack %s%s  %s\n", name, count, p.elapsed())
}

func (p *progressState) probe(pack string, res report.Probe) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pack != p.name {
		p.end()
		p.name, p.total = pack, p.planned(pack)
	}
	if p.total > 0 && p.done[pack] >= p.total {
		p.done[pack] = 0 // the next start of a pack started once per role
	}
	p.done[pack]++
	done := p.done[pack]
	count := fmt.Sprint(done)
	if p.total > 0 {
		count += fmt.Sprintf("/%d", p.total)
	}
	text := fmt.Sprintf("sealmark: %s %s %s %s", pack, count, oneLine(res.Name), res.Verdict)
	if !p.terminal {
		fmt.Fprintf(p.w, "%s  %dms  %s\n", text, res.Millis, p.elapsed())
		return
	}
	p.draw(text)
	if p.total > 0 && done >= p.total {
		p.end()
	}
}

// draw replaces the live line with text and the elapsed time.
func (p *progressState) draw(text string) {
	text += "  " + p.elapsed()
	if len(text) > progressWidth {
		text = text[:progressWidth]
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", text)
	p.open = true
}

// end finishes the live line, so what is written next starts on a line
// of its own.
func (p *progressState) end() {
	if p.open {
		fmt.Fprint(p.w, "\n")
		p.open = false
	}
}

func (p *progressState) elapsed() string {
	return fmt.Sprintf("%.1fs", time.Since(p.start).Seconds())
}

// oneLine drops control characters from a name a pack chose.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}
