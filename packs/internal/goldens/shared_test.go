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
	compareWith(t, runs, "fresh starts", "sharing", func(c *engine.Config) { c.FreshStarts = true }, func(t *testing.T, as, fresh *report.Report) {
		assert.False(t, shared(fresh), "a fresh-starts run shared a start")
		if !shared(as) {
			t.Logf("no pack ran on another's start (%d packs ran)", len(as.Packs))
		}
	})
}

// compareWith runs each of runs as it is and as alt changes it, two at a
// time, checks both with also, and compares their normalized reports:
// altName is how the changed run is named, asName the run as it is.
func compareWith(t *testing.T, runs []loadRun, altName, asName string, alt func(*engine.Config), also func(t *testing.T, as, changed *report.Report)) {
	t.Helper()
	both := append(slices.Clone(runs), runs...)
	res := runAll(t, both, func(i int) engine.Config {
		c := both[i].cfg
		c.Args = slices.Clone(c.Args)
		if i >= len(runs) {
			alt(&c)
		}
		return c
	}, 2)
	for i, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			as, changed := res[i], res[len(runs)+i]
			require.NoError(t, as.Err)
			require.NoError(t, changed.Err)
			require.Empty(t, as.Report.HarnessError)
			require.Empty(t, changed.Report.HarnessError)
			also(t, as.Report, changed.Report)
			a, err := json.MarshalIndent(normalize(as.Report), "", "  ")
			require.NoError(t, err)
			b, err := json.MarshalIndent(normalize(changed.Report), "", "  ")
			require.NoError(t, err)
			assert.Equal(t, string(b), string(a), "%s changed the report (%s: expected; %s: actual)", asName, altName, asName)
			t.Logf("%s %s, %s %s", asName, as.took.Round(time.Millisecond), altName, changed.took.Round(time.Millisecond))
		})
	}
}

// partsReal=1 runs TestPartsReal.
const partsReal = "SEALMARK_PARTS_REAL"

// TestPartsReal runs every pinned real server whose packs include one
// that starts the server afresh (effects, exec, git) after core, once
// with two packs at once (Config.Jobs 2, the CLI's default on two CPUs)
// and once one after another, and requires the same report, as
// TestSharedStartsReal does. TestGoldens compares the fixture runs.
func TestPartsReal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs real servers twice (minutes)")
	}
	if os.Getenv(partsReal) != "1" {
		t.Skipf("set %s=1 to run it: the pinned real servers judged by effects, exec or git, twice each with core, "+
			"over 10 minutes; TestGoldens compares every fixture run both ways", partsReal)
	}
	var keep []loadRun
	for _, r := range onlyRuns(realRuns(t)) {
		own := slices.ContainsFunc(r.cfg.Packs, func(p string) bool { return !slices.Contains(sharingPacks, p) })
		if !own || len(r.cfg.Services) > 0 {
			continue // no pack after core would run beside it
		}
		if !slices.Contains(r.cfg.Packs, "core") {
			r.cfg.Packs = append([]string{"core"}, r.cfg.Packs...)
			r.name += "+core"
		}
		r.cfg.Jobs = 2
		keep = append(keep, r)
	}
	compareWith(t, keep, "one after another", "two packs at once", func(c *engine.Config) { c.Jobs = 1 }, func(*testing.T, *report.Report, *report.Report) {})
}
