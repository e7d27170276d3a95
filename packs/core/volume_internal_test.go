package core

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sealmark/sealmark/packs"
)

// ledger is a tool list of n tools, each description naming the next tool
// in a phrase that is not steering, so every description is read in full.
func ledger(n int) []packs.Tool {
	tools := make([]packs.Tool, n)
	for i := range tools {
		raw, _ := json.Marshal(map[string]any{
			"name":        fmt.Sprintf("entry_%04d", i),
			"description": fmt.Sprintf("Show ledger entry %d. See entry_%04d for the next one; use it instead of paging.", i, i+1),
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"account": map[string]any{"type": "string", "description": "The account."}}},
		})
		_ = json.Unmarshal(raw, &tools[i])
		tools[i].Raw = raw
	}
	return tools
}

// metadataPass runs tool-metadata over tools with ctx.
func metadataPass(ctx context.Context, tools []packs.Tool) *packs.Pass {
	p := &packs.Pass{Ctx: ctx, Probe: &toolMetadata, Surface: &packs.Surface{Tools: tools}}
	toolMetadata.Run(p)
	return p
}

// BenchmarkToolMetadata measures the metadata check per tool list size; the
// time per tool stays flat (it was 15 ms per tool at 300 tools and 141 ms
// at 3,000 when every description was matched against every name).
func BenchmarkToolMetadata(b *testing.B) {
	for _, n := range []int{300, 3000} {
		tools := ledger(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if v, _, f, _ := metadataPass(context.Background(), tools).Outcome(); v != packs.Passed {
					b.Fatalf("verdict %s %v, want pass", v, f)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/tool")
		})
	}
}

// TestToolMetadataCancelled: a cancelled run stops the check at once and
// says so, rather than judging (or passing) the rest.
func TestToolMetadataCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v, reason, findings, _ := metadataPass(ctx, ledger(3000)).Outcome()
	if v != packs.Inconclusive || reason != "interrupted after 0 of 3000 tools (context canceled)" || len(findings) != 0 {
		t.Errorf("cancelled: verdict %s (%s), findings %v; want inconclusive, interrupted after 0 of 3000 tools", v, reason, findings)
	}
}
