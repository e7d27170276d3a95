package sqlite_test

import (
	"strings"
	"testing"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/sqlserver"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// TestSplitTwins proves the probes by effect on the split shape of the
// fixture (-split, the reference SQLite server's: read_query runs only
// SELECT, write_query refuses SELECT and so returns no rows, create_table
// takes a CREATE TABLE statement): the correct server fails none, and
// each twin fails exactly what its flaw earns, through the tool that
// returns no rows. Without the channels by effect, attach and
// write-outside were inconclusive here (write_query fails a SELECT
// control) and multi-statement and guard-bypass not applicable (no tool
// but read_query says it only reads).
func TestSplitTwins(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the twins of a server with split read and write tools")
	}
	self := packtest.Self(t)
	twins := []packtest.Twin{
		{},
		{Flaws: "attach", Want: packtest.Want{
			"SQLITE-ATTACH-READ": {
				`write_query(query="ATTACH DATABASE '{sandbox_top}/canary/other.db' AS sealmark_{token}r") then read_query(query="SELECT secret FROM sealmark_{token}r.secrets") returned the secret row of canary/other.db`,
				`write_query(query="ATTACH DATABASE '{sandbox_top}/canary/other.db' AS sealmark_{token}r") then write_query(query="INSERT INTO notes (body) SELECT secret FROM sealmark_{token}r.secrets") copied the secret row of canary/other.db, a database outside the root, into app.db`,
			},
			"SQLITE-WRITE-OUTSIDE": {
				`write_query(query="ATTACH DATABASE '{sandbox_top}/root-evil/sealmark-{token}-attach.db' AS sealmark_{token}w") then write_query(query="CREATE TABLE sealmark_{token}w.t (a)") then write_query(query="DETACH DATABASE sealmark_{token}w") wrote outside the root: root-evil/sealmark-{token}-attach.db created`,
				`write_query(query="VACUUM INTO '{sandbox_top}/root-evil/sealmark-{token}-vacuum.db'") wrote outside the root: root-evil/sealmark-{token}-vacuum.db created`,
			},
		}},
		{Flaws: "create-prefix", Want: packtest.Want{
			"SQLITE-MULTI-STATEMENT": {
				`create_table(query="CREATE TABLE sealmark_{token}_p (a); DROP TABLE notes") ran a write the tool refuses alone (create_table(query="DROP TABLE notes") changed nothing): table notes dropped`,
				`create_table(query="CREATE TABLE sealmark_{token}_p (a);DROP TABLE notes") ran a write`,
				`create_table(query="CREATE TABLE sealmark_{token}_p (a); DELETE FROM notes") ran a write the tool refuses alone (create_table(query="DELETE FROM notes") changed nothing): notes: 2 rows → 0`,
				`create_table(query="CREATE TABLE sealmark_{token}_p (a);DELETE FROM notes") ran a write`,
			},
		}},
		{Flaws: "drop-denylist", Want: packtest.Want{
			"SQLITE-GUARD-BYPASS": {
				`write_query(query="DROP\tTABLE notes") ran a write the tool refuses alone (write_query(query="DROP TABLE notes") changed nothing): table notes dropped`,
				`write_query(query="DROP/**/TABLE notes") ran a write`,
				`write_query(query="drop table notes") ran a write`,
				`write_query(query="dRoP tAbLe NoTeS") ran a write`,
				`write_query(query="/* sealmark */ DROP TABLE notes") ran a write`,
				`write_query(query="-- sealmark\nDROP TABLE notes") ran a write`,
			},
		}},
		{Flaws: "insight-table", Want: packtest.Want{
			"SQLITE-SIDE-EFFECT-WRITE": {`append_insight(insight=…) changed app.db, which it was not asked to write: table insights created`},
		}},
	}
	packtest.RunAll(t, twins, func(tw packtest.Twin) engine.Config {
		return config(self, sqlserver.Verb, "-split", "-flaws="+tw.Flaws, "{sqlite}")
	}, func(t *testing.T, tw packtest.Twin, r packtest.Result) {
		packtest.Expect(t, r.Report, tw.Want, packtest.OnlyNotApplicable())
	})
}

// TestSplitPassive: without --active, attach-read writes nothing, so a
// tool that returns no rows is not tried by effect and the probe says so
// (inconclusive, not a pass) instead of copying into app.db.
func TestSplitPassive(t *testing.T) {
	cfg := config(packtest.Self(t), sqlserver.Verb, "-split", "-flaws=attach", "{sqlite}")
	cfg.Active = false
	rep := packtest.MustRun(t, cfg)
	for _, p := range rep.Packs[0].Probes {
		if p.ID != "SQLITE-ATTACH-READ" {
			continue
		}
		if p.Verdict != packs.Inconclusive || !strings.Contains(p.Reason, "write_query: ") || !strings.Contains(p.Reason, "judged by its effect, with --active") {
			t.Errorf("attach-read: verdict %s (%s), want inconclusive naming write_query and --active", p.Verdict, p.Reason)
		}
		return
	}
	t.Error("attach-read did not run")
}
