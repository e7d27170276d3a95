package goldens_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
)

// sharedReal=1 runs TestSharedStartsReal.
const sharedReal = "SEALMARK_SHARED_REAL"

// sharingPacks are the packs a default run hands a start between (core's
// drift check's start, then each pack that shares: packs.Pack.SharesStart).
// The other packs always start the server afresh, so their verdicts
// cannot depend on sharing.
var sharingPacks = []string{"core", "fs", "sqlite"}

// shared reports whether a pack of rep ran on another's start.
func shared(rep *report.Report) bool {
	return slices.ContainsFunc(rep.Packs, func(pk report.Pack) bool { return pk.SharedStart != "" })
}

// TestSharedStartsReal runs every pinned real server with the packs that
// share a start, once sharing and once with fresh starts
// (Config.FreshStarts), and requires the same report: per pack and probe
// the verdict, the severity and the findings' fingerprints, the run's
// class, summary and what was not covered. A server the sharing packs
// give no shared start (one pack applies) says so and is not compared.
func TestSharedStartsReal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs every real server twice (minutes)")
	}
	if os.Getenv(sharedReal) != "1" {
		t.Skipf("set %s=1 to run it: every pinned real server twice with core, fs and sqlite, "+
			"over 10 minutes (desktop-commander alone takes 5 a run); TestGoldens compares every fixture run both ways", sharedReal)
	}
	runs := onlyRuns(realRuns(t))
	seen := map[string]bool{}
	var keep []loadRun
	for _, r := range runs {
		srv := r.name[:len(r.name)-len(packsSuffix(r.name))]
		if seen[srv] {
			continue
		}
		seen[srv] = true
		r.cfg.Packs = sharingPacks
		r.cfg.StartTimeout, r.cfg.CallTimeout = time.Minute, 10*time.Second
		r.name = srv + "sharing"
		keep = append(keep, r)
	}
	compareShared(t, keep)
}

// packsSuffix is the packs part of a load run's name ("fs+git" of
// "github-mcp-server-1.8.7/fs+git").
func packsSuffix(name string) string {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '/' {
			return name[i+1:]
		}
	}
	return ""
}

// compareShared runs each of runs sharing and with fresh starts, two at a
// time, and compares their normalized reports.
func compareShared(t *testing.T, runs []loadRun) {
	t.Helper()
	both := append(slices.Clone(runs), runs...)
	res := runAll(t, both, func(i int) engine.Config {
		c := both[i].cfg
		c.Args = slices.Clone(c.Args)
		c.FreshStarts = i >= len(runs)
		return c
	}, 2)
	for i, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			sh, fresh := res[i], res[len(runs)+i]
			require.NoError(t, sh.Err)
			require.NoError(t, fresh.Err)
			require.Empty(t, sh.Report.HarnessError)
			require.Empty(t, fresh.Report.HarnessError)
			assert.False(t, shared(fresh.Report), "a fresh-starts run shared a start")
			if !shared(sh.Report) {
				t.Logf("no pack ran on another's start (%d packs ran)", len(sh.Report.Packs))
			}
			a, err := json.MarshalIndent(normalize(sh.Report), "", "  ")
			require.NoError(t, err)
			b, err := json.MarshalIndent(normalize(fresh.Report), "", "  ")
			require.NoError(t, err)
			assert.Equal(t, string(b), string(a), "sharing starts changed the report (fresh starts: expected; sharing: actual)")
			t.Logf("sharing %s, fresh starts %s", sh.took.Round(time.Millisecond), fresh.took.Round(time.Millisecond))
		})
	}
}
