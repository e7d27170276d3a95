package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs"
)

// TestOneFindingTextEverywhere: the text, JUnit and diff writers show a
// finding with the same lines go test prints (FindingText): id, severity,
// confidence, message, CWE and evidence.
func TestOneFindingTextEverywhere(t *testing.T) {
	f := packs.Finding{Severity: packs.High, Confidence: packs.ConfidenceMedium, CWE: "CWE-22", Message: "read the canary file through a link",
		Evidence: []packs.Evidence{{Observer: "files", Detail: "opened canary/secret.txt"}}}
	rep := &Report{Class: Standard, Packs: []Pack{{Name: "fs", Probes: []Probe{{ID: "FS-LINK", Name: "link", Verdict: packs.Failed, Severity: packs.High, Findings: []packs.Finding{f}}}}}}
	Finalize(rep, nil)
	head := "FS-LINK high (medium confidence): read the canary file through a link [CWE-22]"
	require.Equal(t, head+"\n    evidence: files: opened canary/secret.txt", FindingText("FS-LINK", f, "    "))

	var text, junit, diff strings.Builder
	require.NoError(t, WriteText(&text, rep))
	require.NoError(t, WriteJUnit(&junit, rep))
	require.NoError(t, WriteDiff(&diff, Diff(&Report{Class: Standard}, rep)))
	for name, out := range map[string]string{"text": text.String(), "junit": junit.String(), "diff": diff.String()} {
		assert.Contains(t, out, head, name)
		assert.Contains(t, out, "evidence: files: opened canary/secret.txt", name)
	}
}
