package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs"
)

// inheritedReport has two findings of one probe, the first the server's
// SDK's own behaviour.
func inheritedReport() *Report {
	rep := &Report{Class: Standard, Packs: []Pack{{Name: "core", Probes: []Probe{{
		ID: "CORE-MODERN-META", Name: "modern-meta-required", Verdict: packs.Failed, Severity: packs.High,
		Findings: []packs.Finding{
			{Severity: packs.High, Message: "tools/list without _meta was answered with a result, want error -32602", Inherited: "mcp-go v1.2.1"},
			{Severity: packs.High, Message: "tools/list whose _meta lacks clientCapabilities was answered with a result, want error -32602"},
		},
	}}}}}
	Finalize(rep, nil)
	return rep
}

// TestInheritedInEveryFormat: text, JSON, SARIF and JUnit name the SDK on
// the inherited finding, and on it only.
func TestInheritedInEveryFormat(t *testing.T) {
	const line = "inherited from mcp-go v1.2.1: the SDK behaves so by itself"
	var text, js, sarif, junit bytes.Buffer
	require.NoError(t, WriteText(&text, inheritedReport()))
	require.NoError(t, WriteJSON(&js, inheritedReport()))
	require.NoError(t, WriteSARIF(&sarif, inheritedReport(), SARIFOptions{}))
	require.NoError(t, WriteJUnit(&junit, inheritedReport()))
	for name, out := range map[string]string{"text": text.String(), "sarif": sarif.String(), "junit": junit.String()} {
		assert.Equal(t, 1, strings.Count(out, line), "%s:\n%s", name, out)
	}

	back, err := ReadJSON(bytes.NewReader(js.Bytes()))
	require.NoError(t, err)
	fs := back.Packs[0].Probes[0].Findings
	assert.Equal(t, "mcp-go v1.2.1", fs[0].Inherited)
	assert.Empty(t, fs[1].Inherited)

	var s struct {
		Runs []struct {
			Results []struct {
				Properties map[string]any `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(sarif.Bytes(), &s))
	res := s.Runs[0].Results
	require.Len(t, res, 2)
	assert.Equal(t, "mcp-go v1.2.1", res[0].Properties["inherited"])
	assert.NotContains(t, res[1].Properties, "inherited")
}
