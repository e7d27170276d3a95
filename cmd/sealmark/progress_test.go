package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// playRun calls the hooks the way engine.Run does for the first pack of
// catalogue.All, every probe passing, then for an unknown pack with one probe.
func playRun(h engine.Hooks) (pack string, probes int) {
	pk := catalogue.All[0]
	h.Pack(pk.Name)
	for _, pr := range pk.Probes {
		h.Probe(pk.Name, report.Probe{Name: pr.Name, Verdict: packs.Passed, Millis: 3})
	}
	h.Pack("extra")
	h.Probe("extra", report.Probe{Name: "odd\r\nname\x1b[2J", Verdict: packs.Failed})
	return pk.Name, len(pk.Probes)
}

// progressHooks are newProgress's hooks, each pack of catalogue.All planned
// at its probe count.
func progressHooks(w *bytes.Buffer, terminal, quiet bool) engine.Hooks {
	return newProgress(w, terminal, quiet, allPlanned).hooks()
}

func allPlanned(name string) int {
	for _, pk := range catalogue.All {
		if pk.Name == name {
			return len(pk.Probes)
		}
	}
	return 0
}

func TestProgressQuietPrintsNothing(t *testing.T) {
	for _, terminal := range []bool{true, false} {
		var b bytes.Buffer
		p := newProgress(&b, terminal, true, allPlanned)
		h := p.hooks()
		assert.Nil(t, h.Pack)
		assert.Nil(t, h.Probe)
		p.close()
		assert.Empty(t, b.String())
	}
}

// TestProgressCountNeverPassesItsTotal: the total is what the run plans
// for the pack (core's drift check included), and a pack started once per
// role counts each start from 1, so "core 54/53" and "db 5/4" never show.
func TestProgressCountNeverPassesItsTotal(t *testing.T) {
	planned := func(name string) int { return map[string]int{"core": 3, "db": 2}[name] }
	for _, terminal := range []bool{true, false} {
		var b bytes.Buffer
		h := newProgress(&b, terminal, false, planned).hooks()
		h.Pack("core")
		for i := range 3 {
			h.Probe("core", report.Probe{Name: fmt.Sprint("p", i), Verdict: packs.Passed})
		}
		h.Pack("db")
		for i := range 4 { // two starts of two probes
			h.Probe("db", report.Probe{Name: fmt.Sprint("q", i), Verdict: packs.Passed})
		}
		out := b.String()
		assert.Contains(t, out, "core 3/3 p2 pass")
		assert.Contains(t, out, "db 2/2 q1 pass")
		assert.Contains(t, out, "db 2/2 q3 pass", "the second start counts from 1 again")
		assert.Contains(t, out, "db 1/2 q2 pass")
		for _, over := range []string{"core 4/3", "db 3/2", "db 4/2"} {
			assert.NotContains(t, out, over)
		}
	}
}

// TestProgressClosedBeforeTheReport: a last pack that does not apply
// leaves its live line open ("starting", no probe reports); close ends it,
// so the report starts on a line of its own, and closing twice adds
// nothing.
func TestProgressClosedBeforeTheReport(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, true, false, allPlanned)
	h := p.hooks()
	h.Pack("db")
	require.False(t, strings.HasSuffix(b.String(), "\n"), "the live line is open: %q", b.String())
	p.close()
	assert.True(t, strings.HasSuffix(b.String(), "\n"), "close ends the live line: %q", b.String())
	p.close()
	assert.Equal(t, 1, strings.Count(b.String(), "\n"), "a second close adds nothing: %q", b.String())

	// Without a terminal every line is already ended.
	b.Reset()
	p = newProgress(&b, false, false, allPlanned)
	p.hooks().Pack("db")
	p.close()
	assert.Equal(t, 1, strings.Count(b.String(), "\n"), "%q", b.String())
}

func TestProgressPlainLinesWithoutATerminal(t *testing.T) {
	var b bytes.Buffer
	name, n := playRun(progressHooks(&b, false, false))
	out := b.String()
	assert.NotContains(t, out, "\r", "no redrawing in a CI log")
	assert.NotContains(t, out, "\x1b", "no escape sequences in a CI log, not even from a probe's name")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, n+3, out)
	assert.Regexp(t, fmt.Sprintf(`^sealmark: pack %s \(%d probes\)  \d+\.\ds$`, name, n), lines[0])
	first := catalogue.All[0].Probes[0].Name
	assert.Regexp(t, fmt.Sprintf(`^sealmark: %s 1/%d %s pass  3ms  \d+\.\ds$`, name, n, first), lines[1])
	assert.Regexp(t, `^sealmark: pack extra  \d+\.\ds$`, lines[n+1], "an unknown pack has no count")
	assert.Regexp(t, `^sealmark: extra 1 oddname\[2J fail  0ms  \d+\.\ds$`, lines[n+2])
}

func TestProgressLiveLineOnATerminal(t *testing.T) {
	var b bytes.Buffer
	name, n := playRun(progressHooks(&b, true, false))
	out := b.String()
	assert.True(t, strings.HasPrefix(out, "\r\x1b[Ksealmark: "+name+fmt.Sprintf(" (%d probes) starting", n)), out)
	assert.Contains(t, out, fmt.Sprintf("\r\x1b[Ksealmark: %s %d/%d %s pass  ", name, n, n, catalogue.All[0].Probes[n-1].Name))
	// The pack's line ends once its last probe reported; the unknown pack's
	// line stays open until something else ends it.
	assert.Equal(t, 1, strings.Count(out, "\n"), out)
	assert.Contains(t, out, "\r\x1b[Ksealmark: extra 1 oddname[2J fail")
	for _, frame := range strings.Split(out, "\r\x1b[K") {
		assert.LessOrEqual(t, len(strings.TrimSuffix(frame, "\n")), progressWidth, "a frame must never wrap: %q", frame)
	}

	// The next pack ends an open line before drawing its own.
	progress := newProgress(&b, true, false, nil)
	b.Reset()
	progress.pack("a")
	progress.pack("b")
	assert.Equal(t, 1, strings.Count(b.String(), "\n"))
	assert.Contains(t, b.String(), "\n\r\x1b[Ksealmark: b starting")
}

// TestProgressPacksAtOnce interleaves two packs' probes, as packs that run
// at once (--jobs) report them: each keeps its own count.
func TestProgressPacksAtOnce(t *testing.T) {
	var b bytes.Buffer
	h := progressHooks(&b, false, false)
	h.Pack("fs")
	h.Pack("effects")
	h.Probe("fs", report.Probe{Name: "a", Verdict: packs.Passed})
	h.Probe("effects", report.Probe{Name: "b", Verdict: packs.Passed})
	h.Probe("fs", report.Probe{Name: "c", Verdict: packs.Passed})
	h.Probe("effects", report.Probe{Name: "d", Verdict: packs.Passed})
	fs, effects := allPlanned("fs"), allPlanned("effects")
	require.NotZero(t, fs)
	require.NotZero(t, effects)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, 6, b.String())
	for i, want := range []string{
		fmt.Sprintf(`^sealmark: fs 1/%d a pass`, fs), fmt.Sprintf(`^sealmark: effects 1/%d b pass`, effects),
		fmt.Sprintf(`^sealmark: fs 2/%d c pass`, fs), fmt.Sprintf(`^sealmark: effects 2/%d d pass`, effects),
	} {
		assert.Regexp(t, want, lines[i+2])
	}
}
