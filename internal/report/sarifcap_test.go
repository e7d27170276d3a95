package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs"
)

// floodReport has one failing probe per severity with n findings each.
func floodReport(n int) *Report {
	rep := &Report{Schema: SchemaVersion, Tool: Tool{Name: "sealmark", Version: "dev"}, Server: Server{Command: "srv"}}
	pk := Pack{Name: "core"}
	for _, sev := range []packs.Severity{packs.Low, packs.Medium, packs.Critical} {
		pr := Probe{ID: "P-" + sev.String(), Name: "p-" + sev.String(), Severity: sev, Verdict: packs.Failed}
		for i := range n {
			pr.Findings = append(pr.Findings, packs.Finding{Severity: sev, Message: fmt.Sprintf("%s finding %d", sev, i)})
		}
		pk.Probes = append(pk.Probes, pr)
	}
	rep.Packs = []Pack{pk}
	return rep
}

// TestSARIFResultCap writes a report of 3 × 2,000 findings: the log holds
// MaxSARIFResults results, every critical one first, and a warning
// notification says how many were left out; a report under the cap keeps
// every result and has no such notification.
func TestSARIFResultCap(t *testing.T) {
	for _, n := range []int{2000, 10} {
		var buf bytes.Buffer
		require.NoError(t, WriteSARIF(&buf, floodReport(n), SARIFOptions{}))
		var log struct {
			Runs []struct {
				Results []struct {
					RuleID string `json:"ruleId"`
					Level  string `json:"level"`
				} `json:"results"`
				Invocations []struct {
					ToolExecutionNotifications []struct {
						Level   string                `json:"level"`
						Message struct{ Text string } `json:"message"`
					} `json:"toolExecutionNotifications"`
				} `json:"invocations"`
			} `json:"runs"`
		}
		require.NoError(t, json.Unmarshal(buf.Bytes(), &log))
		run := log.Runs[0]
		notes := run.Invocations[0].ToolExecutionNotifications
		if n == 10 {
			assert.Len(t, run.Results, 30)
			assert.Empty(t, notes)
			continue
		}
		require.Len(t, run.Results, MaxSARIFResults)
		for i, r := range run.Results[:n] {
			require.Equal(t, "P-critical", r.RuleID, "result %d", i)
		}
		require.Len(t, notes, 1)
		assert.Equal(t, "warning", notes[0].Level)
		assert.Equal(t, fmt.Sprintf("%d of 6000 results are not listed: this log holds at most %d, the most severe first (code scanning accepts 25000 per run); the JSON report lists every finding", 6000-MaxSARIFResults, MaxSARIFResults), notes[0].Message.Text)
	}
}
