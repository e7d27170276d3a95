package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs"
)

func baselineReport() *Report {
	return &Report{Packs: []Pack{{Name: "core", Probes: []Probe{{
		ID: "CORE-TOOLS-LIST", Verdict: packs.Failed, Severity: packs.High,
		Findings: []packs.Finding{{Severity: packs.High, Message: "dup", Fingerprint: "aaaa"}},
	}}}}}
}

func writeBaseline(t *testing.T, body string) string {
	path := filepath.Join(t.TempDir(), "baseline.json")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	return path
}

func TestBaselineAcceptsAndGoesStale(t *testing.T) {
	b, err := LoadBaseline(writeBaseline(t, `{"accepted":[{"probe":"CORE-TOOLS-LIST","fingerprint":"aaaa","justification":"kept for old clients"}]}`))
	require.NoError(t, err)

	rep := baselineReport()
	assert.Equal(t, ExitFindings, ExitCode(rep, packs.High))
	ApplyBaseline(rep, b)
	assert.Equal(t, "kept for old clients", rep.Packs[0].Probes[0].Findings[0].Accepted)
	assert.Empty(t, rep.StaleBaseline)
	assert.Equal(t, ExitClean, ExitCode(rep, packs.High), "an accepted finding does not fail the run")

	fixed := baselineReport()
	fixed.Packs[0].Probes[0].Findings[0].Fingerprint = "bbbb"
	ApplyBaseline(fixed, b)
	assert.Equal(t, []string{"CORE-TOOLS-LIST aaaa"}, fixed.StaleBaseline, "an entry without severity or message is named by id and fingerprint")
	assert.Equal(t, ExitFindings, ExitCode(fixed, packs.Critical), "a stale entry fails the run")
}

func TestBaselineErrors(t *testing.T) {
	for body, want := range map[string]string{
		`{"accepted":[{"probe":"X-Y","fingerprint":"f"}]}`:       "no justification",
		`{"accepted":[{"fingerprint":"f","justification":"j"}]}`: "no probe id",
		`{"accepted":[{"probe":"X-Y","justification":"j"}]}`:     "no fingerprint",
		`{"accepted":[],"extra":1}`:                              `unknown field "extra"`,
		`not json`:                                               "invalid character",
	} {
		_, err := LoadBaseline(writeBaseline(t, body))
		assert.ErrorContains(t, err, want, body)
	}
	_, err := LoadBaseline(filepath.Join(t.TempDir(), "missing.json"))
	assert.ErrorContains(t, err, "missing.json")
}

func TestBaselineFromRoundTrips(t *testing.T) {
	rep := &Report{Packs: []Pack{{Name: "core", Probes: []Probe{
		{ID: "A", Verdict: packs.Failed, Severity: packs.High, Findings: []packs.Finding{
			{Severity: packs.High, Message: "one", Fingerprint: "f1"},
			{Severity: packs.Low, Message: "two", Fingerprint: "f2", Accepted: "known since v1"},
			{Severity: packs.High, Message: "one again", Fingerprint: "f1"},
		}},
		{ID: "B", Verdict: packs.Passed, Findings: []packs.Finding{{Message: "a note", Fingerprint: "f3"}}},
		{ID: "C", Verdict: packs.NotApplicable},
	}}}}
	b := BaselineFrom(rep, "")
	assert.Equal(t, []BaselineEntry{
		{Probe: "A", Fingerprint: "f1", Severity: "high", Message: "one"},
		{Probe: "A", Fingerprint: "f2", Severity: "low", Message: "two", Justification: "known since v1"},
	}, b.Accepted, "failing probes' findings once each, with severity and message, an accepted one keeping its reason")

	path := filepath.Join(t.TempDir(), "b.json")
	write := func(b *Baseline) {
		f, err := os.Create(path)
		require.NoError(t, err)
		require.NoError(t, WriteBaseline(f, b))
		require.NoError(t, f.Close())
	}
	write(b)
	_, err := LoadBaseline(path)
	require.Error(t, err, "an entry without a justification is refused until edited")
	assert.Contains(t, err.Error(), "entry 0 (A f1): no justification")

	write(BaselineFrom(rep, "accepted at release 2"))
	loaded, err := LoadBaseline(path)
	require.NoError(t, err)
	ApplyBaseline(rep, loaded)
	assert.Empty(t, rep.StaleBaseline)
	assert.Equal(t, "accepted at release 2", rep.Packs[0].Probes[0].Findings[0].Accepted)
	assert.Equal(t, 0, ExitCode(rep, packs.Low), "every finding accepted: the run passes")
}

func TestBaselineStaleOnlyForProbesThatRan(t *testing.T) {
	b, err := LoadBaseline(writeBaseline(t, `{"accepted":[
		{"probe":"CORE-TOOLS-LIST","fingerprint":"gone","severity":"high","message":"two tools named x","justification":"j"},
		{"probe":"FS-SYMLINK-FILE","fingerprint":"f","justification":"the fs pack did not run"},
		{"probe":"CORE-SWEEP","fingerprint":"s","justification":"the probe was not applicable"}]}`))
	require.NoError(t, err)
	rep := baselineReport()
	rep.Packs[0].Probes = append(rep.Packs[0].Probes, Probe{ID: "CORE-SWEEP", Verdict: packs.NotApplicable})
	ApplyBaseline(rep, b)
	assert.Equal(t, []string{"CORE-TOOLS-LIST gone (high: two tools named x)"}, rep.StaleBaseline,
		"only the entry of a probe that ran and found something else is stale, named with its severity and message")
}

func TestAcceptedCountedAsAccepted(t *testing.T) {
	b, err := LoadBaseline(writeBaseline(t, `{"accepted":[{"probe":"CORE-TOOLS-LIST","fingerprint":"aaaa","justification":"kept"}]}`))
	require.NoError(t, err)
	rep := baselineReport()
	Finalize(rep, nil)
	assert.Equal(t, 1, rep.Summary.Outcomes[OutcomeFail])
	ApplyBaseline(rep, b)
	assert.Equal(t, map[Outcome]int{OutcomeFail: 0, OutcomeWarn: 0, OutcomeAccepted: 1}, rep.Summary.Outcomes)
	assert.Equal(t, 0, rep.Summary.Findings["high"], "an accepted finding is not an open one")
	assert.Equal(t, 1, rep.Summary.AcceptedFindings)
	var text strings.Builder
	require.NoError(t, WriteText(&text, rep))
	assert.Contains(t, text.String(), "  ACCEPTED  ")
	assert.Contains(t, text.String(), "summary: 0 pass, 0 fail, 1 accepted by the baseline, 0 not applicable")
}
