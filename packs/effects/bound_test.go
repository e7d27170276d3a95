package effects_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/effectsserver"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// TestSweepIsBounded: a server that lists 135 read-only tools has at most
// 128 of them called, one of each input schema first, so the flaw behind
// read_note (a schema of its own) is still found among 130 padding tools
// of one shape; the tools left out are named in a note of every probe
// that reads the sweep. The same server with no padding gets no such note.
func TestSweepIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the sweep against a server of 135 read-only tools")
	}
	t.Parallel()
	self := packtest.Self(t)
	type run struct{ extra string }
	packtest.RunAll(t, []run{{"0"}, {"130"}}, func(r run) engine.Config {
		return config(false, self, effectsserver.Verb, "-flaws=write-tmp", "-extra="+r.extra,
			"-allow={upstream}", "-outside=127.0.0.1:9", "-dns=127.0.0.53:53")
	}, func(t *testing.T, r run, res packtest.Result) {
		require.NoError(t, res.Err)
		expect(t, res.Report, packtest.Want{"EFFECTS-WRITES-OUTSIDE-SANDBOX": {
			`medium: read_note(name="sealmark-{token}") opened {tmp}/sealmark-fixture-sealmark-{token}.txt for writing`}})
		var note string
		for _, p := range res.Report.Packs[0].Probes {
			if p.ID != "EFFECTS-WRITES-OUTSIDE-SANDBOX" {
				continue
			}
			for _, n := range p.Notes {
				if strings.Contains(n, "not tried") {
					note = n
				}
			}
		}
		if r.extra == "0" {
			assert.Empty(t, note, "five tools are all called: no tool is left out")
			return
		}
		// 5 shapes first (lookup_0000, fetch_url, check_link, ping_host,
		// read_note), then lookup_0001...lookup_0123 in listing order
		assert.Contains(t, note, "the sweep called 128 tools, at most 128 a start")
		assert.Contains(t, note, "7 not tried: lookup_0124, lookup_0125, lookup_0126, lookup_0127, lookup_0128, lookup_0129, echo_note")
	})
}
