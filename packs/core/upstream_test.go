package core_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs"
)

// TestRefusedUpstreamIsNoDefect: a server whose resources/list fetches the
// list from a service the sandbox does not offer, and answers -32603 when
// the sandbox refuses it, is not charged with a broken feature (the
// fleet's mcp-gdrive: resources/list asks googleapis.com); the probe is
// inconclusive and says why. A server whose resources/list fails with no
// service tried is charged, contained or not.
func TestRefusedUpstreamIsNoDefect(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: core against a server whose upstream the sandbox refuses, waiting out its retries")
	}
	t.Parallel()
	probe := func(flaws string) *struct {
		verdict  packs.Verdict
		reason   string
		findings []string
	} {
		rep, err := coreReport(t.TempDir(), flaws, false)
		require.NoError(t, err)
		require.Empty(t, rep.HarnessError)
		require.Len(t, rep.Packs, 1)
		for _, p := range rep.Packs[0].Probes {
			if p.ID == "CORE-RESOURCES" {
				out := &struct {
					verdict  packs.Verdict
					reason   string
					findings []string
				}{p.Verdict, p.Reason, nil}
				for _, f := range p.Findings {
					out.findings = append(out.findings, f.Severity.String()+": "+f.Message)
				}
				return out
			}
		}
		t.Fatalf("%s: no CORE-RESOURCES probe in the report", flaws)
		return nil
	}
	up := probe("resources-upstream")
	assert.Equal(t, packs.Inconclusive, up.verdict, "findings: %v", up.findings)
	assert.Contains(t, up.reason, "resources/list failed with error -32603")
	assert.Contains(t, up.reason, "while the sandbox refused the server's network (")
	assert.Contains(t, up.reason, "127.0.0.1:9")

	bug := probe("resources-list-fails")
	assert.Equal(t, packs.Failed, bug.verdict, bug.reason)
	assert.Equal(t, []string{"high: the server declared the resources capability but resources/list failed with error -32603 (Internal error: cannot read properties of undefined (reading 'map'))"}, bug.findings)
}
