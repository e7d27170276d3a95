package report

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/packs"
)

// rerun is the report of one run of a server whose finding names the
// stdout line (38, 39 or 40 on identical reruns, as measured) and a temp
// file the server named itself.
func rerun(line int, temp string) *Report {
	rep := &Report{Class: Standard, Packs: []Pack{{Name: "core", Probes: []Probe{
		{ID: "CORE-STDOUT-JSONRPC", Verdict: packs.Failed, Severity: packs.Medium,
			Findings: []packs.Finding{{Severity: packs.Medium, Message: fmt.Sprintf("stdout line %d is a line that is not JSON", line)}}},
		{ID: "EFFECTS-SHARED-OUTPUT", Verdict: packs.Failed, Severity: packs.Medium,
			Findings: []packs.Finding{{Severity: packs.Medium, Message: "export wrote what it was given into tmp/export-" + temp + ".txt, readable by others (0644), in the temp directory"}}},
	}}}}
	Finalize(rep, redact.New())
	return rep
}

// TestRerunsKeepTheirFingerprints: a baseline written from one run holds
// on the next, and diff of the two finds nothing new or fixed.
func TestRerunsKeepTheirFingerprints(t *testing.T) {
	one, two := rerun(38, "Xa9bQz"), rerun(40, "k2Lm0p")
	var buf bytes.Buffer
	require.NoError(t, WriteBaseline(&buf, BaselineFrom(one, "accepted in review")))
	b, err := LoadBaseline(writeBaseline(t, buf.String()))
	require.NoError(t, err)
	ApplyBaseline(two, b)
	assert.Empty(t, two.StaleBaseline, "the baseline of run 1 went stale on run 2")
	assert.Equal(t, ExitClean, ExitCode(two, packs.Low))
	assert.Empty(t, two.Warnings)

	d := Diff(rerun(39, "aB3dE5"), rerun(40, "k2Lm0p"))
	assert.Empty(t, d.NewFindings)
	assert.Empty(t, d.FixedFindings)
	assert.Equal(t, 2, d.Unchanged)
	assert.Zero(t, d.OldFormat)
}

// TestOldBaselineIsMatchedAndNamed: an entry an older Sealmark wrote (its
// fingerprint hashed "stdout line 38") accepts the finding of a run where
// it is line 40, and the report says the baseline should be rewritten.
func TestOldBaselineIsMatchedAndNamed(t *testing.T) {
	msg := "stdout line 38 is a line that is not JSON"
	old := rawFingerprint("CORE-STDOUT-JSONRPC", msg)
	b, err := LoadBaseline(writeBaseline(t, `{"accepted":[{"probe":"CORE-STDOUT-JSONRPC","fingerprint":"`+old+`","message":"`+msg+`","justification":"a debug line, fixed in v2"}]}`))
	require.NoError(t, err)
	rep := rerun(40, "k2Lm0p")
	ApplyBaseline(rep, b)
	assert.Empty(t, rep.StaleBaseline)
	assert.Equal(t, "a debug line, fixed in v2", rep.Packs[0].Probes[0].Findings[0].Accepted)
	require.Len(t, rep.Warnings, 1)
	assert.Contains(t, rep.Warnings[0], "CORE-STDOUT-JSONRPC "+old)
	assert.Contains(t, rep.Warnings[0], "sealmark baseline write")

	// An entry without its message cannot be moved: it goes stale, named.
	b, err = LoadBaseline(writeBaseline(t, `{"accepted":[{"probe":"CORE-STDOUT-JSONRPC","fingerprint":"`+old+`","justification":"j"}]}`))
	require.NoError(t, err)
	rep = rerun(40, "k2Lm0p")
	ApplyBaseline(rep, b)
	assert.Equal(t, []string{"CORE-STDOUT-JSONRPC " + old}, rep.StaleBaseline)
}

// TestDiffOfAnOldReport: a report an older Sealmark wrote (fingerprints of
// the raw messages) diffs against a new one by current fingerprints, and
// the diff says so.
func TestDiffOfAnOldReport(t *testing.T) {
	oldRep := rerun(38, "Xa9bQz")
	for pi := range oldRep.Packs[0].Probes {
		pr := &oldRep.Packs[0].Probes[pi]
		pr.Findings[0].Fingerprint = rawFingerprint(pr.ID, pr.Findings[0].Message)
	}
	d := Diff(oldRep, rerun(39, "k2Lm0p"))
	assert.Empty(t, d.NewFindings)
	assert.Empty(t, d.FixedFindings)
	assert.Equal(t, 2, d.OldFormat)
	var buf bytes.Buffer
	require.NoError(t, WriteDiff(&buf, d))
	assert.Contains(t, buf.String(), "note: 2 finding(s) carry the fingerprint of an older Sealmark")
}
