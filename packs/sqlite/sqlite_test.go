package sqlite_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/sqlserver"
	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/internal/packtest"
	"github.com/sealmark/sealmark/packs/sqlite"
)

func TestMain(m *testing.M) {
	contain.Dispatch()
	sqlserver.Dispatch()
	smbin.Dispatch()
	os.Exit(m.Run())
}

func TestPackDefinition(t *testing.T) {
	for _, err := range sqlite.Pack.Check() {
		t.Error(err)
	}
}

// config is a run of the sqlite pack, passive and active, against a
// server.
func config(command string, args ...string) engine.Config {
	return engine.Config{Command: command, Args: args, Catalog: []packs.Pack{sqlite.Pack}, Active: true}
}

// TestTwins proves every sqlite probe both ways against the fixture
// server: the correct server fails none (and every probe runs: none is
// not applicable), each twin fails exactly the probes its flaw earns.
func TestTwins(t *testing.T) {
	self := packtest.Self(t)
	twins := []packtest.Twin{
		{},
		{Flaws: "no-guard", Want: packtest.Want{
			"SQLITE-READONLY-WRITE": {
				`read_query(query="DELETE FROM notes") changed app.db through a read-only tool: notes: 2 rows → 0`,
				`read_query(query="CREATE TABLE sealmark_{token} (a)") changed app.db through a read-only tool: table sealmark_{token} created`,
				`read_query(query="UPDATE items SET qty = qty + 1") changed app.db through a read-only tool: items: rows changed`,
			},
			"SQLITE-MULTI-STATEMENT": {`read_query(query="SELECT 1; DELETE FROM notes") changed app.db`},
			"SQLITE-GUARD-BYPASS":    {`read_query(query="PRAGMA user_version = 4242") changed app.db through a read-only tool: user_version 0 → 4242`},
		}},
		{Flaws: "select-prefix", Want: packtest.Want{
			"SQLITE-MULTI-STATEMENT": {
				`read_query(query="SELECT 1; DELETE FROM notes") changed app.db through a read-only tool: notes: 2 rows → 0`,
				`read_query(query="SELECT name FROM items;DROP TABLE notes") changed app.db through a read-only tool: table notes dropped`,
			},
		}},
		{Flaws: "denylist", Want: packtest.Want{
			"SQLITE-GUARD-BYPASS": {
				`read_query(query="DROP\tTABLE notes") changed app.db through a read-only tool: table notes dropped`,
				`read_query(query="DROP/**/TABLE notes") changed app.db through a read-only tool: table notes dropped`,
				`read_query(query="/* sealmark */ DELETE FROM notes") changed app.db`,
				`read_query(query="-- sealmark\nDELETE FROM notes") changed app.db`,
				`read_query(query="dElEtE FROM notes") changed app.db`,
				`read_query(query="REPLACE INTO items (id, name, qty) VALUES (1, 'sealmark_{token}', 1)") changed app.db through a read-only tool: items: rows changed`,
				`read_query(query="WITH x AS (SELECT 1) DELETE FROM notes") changed app.db`,
				`read_query(query="PRAGMA user_version = 4242") changed app.db`,
			},
		}},
		{Flaws: "concat-identifiers", Want: packtest.Want{
			"SQLITE-IDENTIFIER-INJECTION": {
				`create_table(table_name="sealmark_{token} (a); DROP TABLE notes; --") changed app.db beyond its own table: table notes dropped`,
				`describe_table(table_name="items); DROP TABLE notes; --") changed app.db beyond its own table: table notes dropped`,
			},
		}},
		{Flaws: "attach", Want: packtest.Want{
			"SQLITE-ATTACH-READ": {
				`read_query(query="SELECT secret FROM sealmark_{token}r.secrets") returned the secret row of canary/other.db`,
				`write_query(query="SELECT secret FROM sealmark_{token}r.secrets") returned the secret row of canary/other.db`,
			},
			"SQLITE-WRITE-OUTSIDE": {
				`read_query(query="ATTACH DATABASE '{sandbox_top}/root-evil/sealmark-{token}-attach.db' AS sealmark_{token}w") then`,
				`write_query(query="VACUUM INTO '{sandbox_top}/root-evil/sealmark-{token}-vacuum.db'") wrote outside the root: root-evil/sealmark-{token}-vacuum.db created`,
			},
		}},
		{Flaws: "backup-anywhere", Want: packtest.Want{
			"SQLITE-WRITE-OUTSIDE": {
				`backup_database(path="{sandbox_top}/root-evil/sealmark-{token}-backup.db") wrote outside the root: root-evil/sealmark-{token}-backup.db created`,
				`backup_database(path="../root-evil/sealmark-{token}-relative.db") wrote outside the root`,
			},
		}},
	}
	twins = packtest.Short(t, twins, "every sqlite probe's twins against the fixture server", "correct", "no-guard")
	packtest.RunAll(t, twins, func(tw packtest.Twin) engine.Config {
		return config(self, sqlserver.Verb, "-flaws="+tw.Flaws, "{sqlite}")
	}, func(t *testing.T, tw packtest.Twin, r packtest.Result) {
		packtest.Expect(t, r.Report, tw.Want, packtest.OnlyNotApplicable())
	})
}

// TestNotPointedAtSQLite: without {sqlite} in the configuration the
// harness cannot watch the database, and every probe says so.
func TestNotPointedAtSQLite(t *testing.T) {
	rep := packtest.MustRun(t, config(packtest.Self(t), sqlserver.Verb, "{sandbox}/elsewhere.db"))
	for _, p := range rep.Packs[0].Probes {
		if p.Verdict != packs.NotApplicable || !strings.Contains(p.Reason, "{sqlite}") {
			t.Errorf("%s: verdict %s (%s), want not applicable naming {sqlite}", p.ID, p.Verdict, p.Reason)
		}
	}
}

// TestRealServer runs the pack against mcp-sqlite 1.0.9 as npx gives it.
// Its one SQL tool, query, promises nothing about reading only (so
// read-only-write does not apply to it, and it refuses no write, so
// multi-statement and guard-bypass have no guard to get round), runs the
// first statement of what it is given (node-sqlite3's Database#all) on a
// connection that keeps attached databases between calls, and has no
// structured tool that takes a table name into SQL unquoted.
//
// Checked by hand once: with app.db made as the harness makes it and
// canary/other.db beside it, `query` with sql "ATTACH DATABASE
// '/tmp/x/canary/other.db' AS o" answered [] and the next call "SELECT
// secret FROM o.secrets" returned the row; "ATTACH DATABASE
// '/tmp/x/root-evil/n.db' AS n" left a 0-byte n.db in root-evil, and
// "VACUUM INTO '/tmp/x/root-evil/v.db'" wrote a full copy there.
func TestRealServer(t *testing.T) {
	script := realserver.SQLite.CwdArg(t)
	rep := packtest.MustRun(t, config("node", script, "{sqlite}"))
	packtest.Expect(t, rep, packtest.Want{
		"SQLITE-ATTACH-READ":   {`query(sql="SELECT secret FROM sealmark_{token}r.secrets") returned the secret row of canary/other.db, a database outside the root`},
		"SQLITE-WRITE-OUTSIDE": {`query(sql="VACUUM INTO '{sandbox_top}/root-evil/sealmark-{token}-vacuum.db'") wrote outside the root: root-evil/sealmark-{token}-vacuum.db created`},
	}, packtest.OnlyNotApplicable("SQLITE-READONLY-WRITE", "SQLITE-MULTI-STATEMENT", "SQLITE-GUARD-BYPASS", "SQLITE-IDENTIFIER-INJECTION"))
}
