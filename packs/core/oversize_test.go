package core_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// TestOversizeToolListJudged runs core against a server whose add_note
// description is padded to 5 MiB before an <IMPORTANT> block, so its
// tools/list line is over the 4 MiB frame limit: the line is a finding
// that names tools/list, the poisoned description is still judged (the
// list was read, not waited for until the start timeout), and the probes
// that send raw requests take the oversize answers for answers. The same
// server without the padding has none of these findings.
func TestOversizeToolListJudged(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: core against a 5 MiB tool description past the frame limit")
	}
	t.Parallel()
	reps := map[string]*report.Report{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, flaws := range []string{"padded-poison", ""} {
		wg.Go(func() {
			rep, err := volumeReport(flaws)
			require.NoError(t, err)
			mu.Lock()
			reps[flaws] = rep
			mu.Unlock()
		})
	}
	wg.Wait()
	for flaws, rep := range reps {
		require.Empty(t, rep.HarnessError, flaws)
		found := map[string][]string{}
		for _, p := range rep.Packs[0].Probes {
			for _, f := range p.Findings {
				found[p.ID] = append(found[p.ID], f.Message)
			}
		}
		if flaws == "" {
			assert.Empty(t, found, "the good server")
			continue
		}
		assert.True(t, anyContains(found["CORE-TOOL-METADATA"], `tool "add_note" description has a tag addressed to the model`), "%v", found["CORE-TOOL-METADATA"])
		assert.True(t, anyContains(found["CORE-STDOUT-JSONRPC"], "over the harness's limit (the answer to tools/list)"), "%v", found["CORE-STDOUT-JSONRPC"])
		for id := range found {
			assert.Contains(t, []string{"CORE-TOOL-METADATA", "CORE-STDOUT-JSONRPC"}, id, "unexpected findings %v", found[id])
		}
		for _, p := range rep.Packs[0].Probes {
			if p.ID == "CORE-TOOLS-LIST" {
				assert.Equal(t, packs.Passed, p.Verdict, "%s: %s", p.Verdict, p.Reason)
			}
		}
	}
}

func anyContains(msgs []string, want string) bool {
	for _, m := range msgs {
		if strings.Contains(m, want) {
			return true
		}
	}
	return false
}

// TestHugeToolListIsAFinding runs core against a server whose tools/list
// line is 9 MiB, over the 8 MiB message limit the harness reads: the start
// does not wait for it (the first probe's result comes well within a third
// of the start timeout), tool-metadata reports the list as a high finding
// rather than "lists no tools", and tools-list says it could not be read.
// The good server has neither finding (TestOversizeToolListJudged).
func TestHugeToolListIsAFinding(t *testing.T) {
	t.Parallel()
	const tooLarge = "the answer to tools/list was over the 8 MiB message limit, so the harness stopped reading it"
	var begun, first time.Time
	var mu sync.Mutex
	rep, err := runVolume("huge-tool-list", engine.Hooks{
		Pack: func(string) {
			mu.Lock()
			defer mu.Unlock()
			if begun.IsZero() {
				begun = time.Now()
			}
		},
		Probe: func(string, report.Probe) {
			mu.Lock()
			defer mu.Unlock()
			if first.IsZero() {
				first = time.Now()
			}
		},
	})
	require.NoError(t, err)
	require.Empty(t, rep.HarnessError)
	mu.Lock()
	took := first.Sub(begun)
	mu.Unlock()
	assert.Less(t, took, volumeStart/3, "the start waited for a tool list that had come")
	probes := map[string]report.Probe{}
	for _, p := range rep.Packs[0].Probes {
		probes[p.ID] = p
	}
	meta := probes["CORE-TOOL-METADATA"]
	require.Equal(t, packs.Failed, meta.Verdict, "%s: %s", meta.Verdict, meta.Reason)
	require.Len(t, meta.Findings, 1)
	assert.Equal(t, "the tool list cannot be reviewed: "+tooLarge, meta.Findings[0].Message)
	assert.Equal(t, packs.High, meta.Findings[0].Severity)
	list := probes["CORE-TOOLS-LIST"]
	assert.True(t, anyContains(messages(list), "the tool list could not be read to its end: "+tooLarge), "%v", messages(list))
}

func messages(p report.Probe) []string {
	var out []string
	for _, f := range p.Findings {
		out = append(out, f.Message)
	}
	return out
}
