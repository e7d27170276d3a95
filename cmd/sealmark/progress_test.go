package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// playRun calls the hooks the way engine.Run does for the first pack of
// engine.All, every probe passing, then for an unknown pack with one probe.
func playRun(h engine.Hooks) (pack string, probes int) {
	pk := engine.All[0]
	h.Pack(pk.Name)
	for _, pr := range pk.Probes {
		h.Probe(pk.Name, report.Probe{Name: pr.Name, Verdict: packs.Passed, Millis: 3})
	}
	h.Pack("extra")
	h.Probe("extra", report.Probe{Name: "odd\r\nname\x1b[2J", Verdict: packs.Failed})
	return pk.Name, len(pk.Probes)
}

func TestProgressQuietPrintsNothing(t *testing.T) {
	for _, terminal := range []bool{true, false} {
		h := progressHooks(&bytes.Buffer{}, terminal, true)
		assert.Nil(t, h.Pack)
		assert.Nil(t, h.Probe)
	}
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
	first := engine.All[0].Probes[0].Name
	assert.Regexp(t, fmt.Sprintf(`^sealmark: %s 1/%d %s pass  3ms  \d+\.\ds$`, name, n, first), lines[1])
	assert.Regexp(t, `^sealmark: pack extra  \d+\.\ds$`, lines[n+1], "an unknown pack has no count")
	assert.Regexp(t, `^sealmark: extra 1 oddname\[2J fail  0ms  \d+\.\ds$`, lines[n+2])
}

func TestProgressLiveLineOnATerminal(t *testing.T) {
	var b bytes.Buffer
	name, n := playRun(progressHooks(&b, true, false))
	out := b.String()
	assert.True(t, strings.HasPrefix(out, "\r\x1b[Ksealmark: "+name+fmt.Sprintf(" (%d probes) starting", n)), out)
	assert.Contains(t, out, fmt.Sprintf("\r\x1b[Ksealmark: %s %d/%d %s pass  ", name, n, n, engine.All[0].Probes[n-1].Name))
	// The pack's line ends once its last probe reported; the unknown pack's
	// line stays open until something else ends it.
	assert.Equal(t, 1, strings.Count(out, "\n"), out)
	assert.Contains(t, out, "\r\x1b[Ksealmark: extra 1 oddname[2J fail")
	for _, frame := range strings.Split(out, "\r\x1b[K") {
		assert.LessOrEqual(t, len(strings.TrimSuffix(frame, "\n")), progressWidth, "a frame must never wrap: %q", frame)
	}

	// The next pack ends an open line before drawing its own.
	progress := &progressState{w: &b, terminal: true}
	b.Reset()
	progress.pack("a")
	progress.pack("b")
	assert.Equal(t, 1, strings.Count(b.String(), "\n"))
	assert.Contains(t, b.String(), "\n\r\x1b[Ksealmark: b starting")
}
