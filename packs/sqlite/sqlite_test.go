package sqlite_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/sqlserver"
	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/packs"
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

// run runs the sqlite pack, passive and active, against a server.
func run(t *testing.T, command string, args ...string) *report.Report {
	t.Helper()
	e, err := engine.New(engine.Config{
		Command: command, Args: args,
		Catalog: []packs.Pack{sqlite.Pack}, Packs: []string{"sqlite"}, Active: true,
		SandboxDir: t.TempDir(), StartTimeout: 20 * time.Second, CallTimeout: 5 * time.Second,
		StdinGrace: time.Second, TermGrace: time.Second,
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep := e.Run(ctx, engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	require.Len(t, rep.Packs, 1)
	return rep
}

// expect checks a report against the probes that must fail, each with
// findings containing the given texts; every other probe must pass or be
// not applicable. A missing finding fails as loudly as an unexpected one.
// Probes named in na may be not applicable.
func expect(t *testing.T, rep *report.Report, want map[string][]string, na ...string) {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range rep.Packs[0].Probes {
		seen[p.ID] = true
		texts, expected := want[p.ID]
		if expected && p.Verdict != packs.Failed {
			t.Errorf("%s: verdict %s (%s), want fail with %q", p.ID, p.Verdict, p.Reason, texts)
			continue
		}
		for _, text := range texts {
			if !slices.ContainsFunc(p.Findings, func(f packs.Finding) bool { return strings.Contains(f.Message, text) }) {
				t.Errorf("%s: findings %v, want one containing %q", p.ID, p.Findings, text)
			}
		}
		switch {
		case !expected && p.Verdict == packs.Failed:
			t.Errorf("%s: unexpected fail: %v", p.ID, p.Findings)
		case !expected && p.Verdict == packs.NotApplicable && slices.Contains(na, p.ID):
		case !expected && p.Verdict != packs.Passed:
			t.Errorf("%s: verdict %s (%s), want pass", p.ID, p.Verdict, p.Reason)
		}
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("%s: probe did not run", id)
		}
	}
}

// TestTwins proves every sqlite probe both ways against the fixture
// server: the correct server fails none (and every probe runs: none is
// not applicable), each twin fails exactly the probes its flaw earns.
func TestTwins(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	twins := []struct {
		flaws string
		want  map[string][]string
	}{
		{"", nil},
		{"no-guard", map[string][]string{
			"SQLITE-READONLY-WRITE": {
				`read_query(query="DELETE FROM notes") changed app.db through a read-only tool: notes: 2 rows → 0`,
				`read_query(query="CREATE TABLE sealmark_{token} (a)") changed app.db through a read-only tool: table sealmark_{token} created`,
				`read_query(query="UPDATE items SET qty = qty + 1") changed app.db through a read-only tool: items: rows changed`,
			},
			"SQLITE-MULTI-STATEMENT": {`read_query(query="SELECT 1; DELETE FROM notes") changed app.db`},
			"SQLITE-GUARD-BYPASS":    {`read_query(query="PRAGMA user_version = 4242") changed app.db through a read-only tool: user_version 0 → 4242`},
		}},
		{"select-prefix", map[string][]string{
			"SQLITE-MULTI-STATEMENT": {
				`read_query(query="SELECT 1; DELETE FROM notes") changed app.db through a read-only tool: notes: 2 rows → 0`,
				`read_query(query="SELECT name FROM items;DROP TABLE notes") changed app.db through a read-only tool: table notes dropped`,
			},
		}},
		{"denylist", map[string][]string{
			"SQLITE-GUARD-BYPASS": {
				`read_query(query="DROP\tTABLE notes") changed app.db through a read-only tool: table notes dropped`,
				`read_query(query="/* sealmark */ DELETE FROM notes") changed app.db`,
				`read_query(query="-- sealmark\nDELETE FROM notes") changed app.db`,
				`read_query(query="dElEtE FROM notes") changed app.db`,
				`read_query(query="REPLACE INTO items (id, name, qty) VALUES (1, 'sealmark_{token}', 1)") changed app.db through a read-only tool: items: rows changed`,
				`read_query(query="WITH x AS (SELECT 1) DELETE FROM notes") changed app.db`,
				`read_query(query="PRAGMA user_version = 4242") changed app.db`,
			},
		}},
		{"concat-identifiers", map[string][]string{
			"SQLITE-IDENTIFIER-INJECTION": {
				`create_table(table_name="sealmark_{token} (a); DROP TABLE notes; --") changed app.db beyond its own table: table notes dropped`,
				`describe_table(table_name="items); DROP TABLE notes; --") changed app.db beyond its own table: table notes dropped`,
			},
		}},
		{"attach", map[string][]string{
			"SQLITE-ATTACH-READ": {
				`read_query(query="SELECT secret FROM sealmark_{token}r.secrets") returned the secret row of canary/other.db`,
				`write_query(query="SELECT secret FROM sealmark_{token}r.secrets") returned the secret row of canary/other.db`,
			},
			"SQLITE-WRITE-OUTSIDE": {
				`read_query(query="ATTACH DATABASE '{sandbox_top}/root-evil/sealmark-{token}-attach.db' AS sealmark_{token}w") then`,
				`write_query(query="VACUUM INTO '{sandbox_top}/root-evil/sealmark-{token}-vacuum.db'") wrote outside the root: root-evil/sealmark-{token}-vacuum.db created`,
			},
		}},
		{"backup-anywhere", map[string][]string{
			"SQLITE-WRITE-OUTSIDE": {
				`backup_database(path="{sandbox_top}/root-evil/sealmark-{token}-backup.db") wrote outside the root: root-evil/sealmark-{token}-backup.db created`,
				`backup_database(path="../root-evil/sealmark-{token}-relative.db") wrote outside the root`,
			},
		}},
	}
	for _, tw := range twins {
		t.Run(cmpName(tw.flaws), func(t *testing.T) {
			t.Parallel()
			rep := run(t, self, sqlserver.Verb, "-flaws="+tw.flaws, "{sqlite}")
			expect(t, stable(rep), tw.want)
		})
	}
}

func cmpName(flaws string) string {
	if flaws == "" {
		return "correct"
	}
	return flaws
}

// stable replaces the probe tokens in findings by {token}, as the report
// writers do, so the expectations can name them.
func stable(rep *report.Report) *report.Report {
	for i := range rep.Packs[0].Probes {
		p := &rep.Packs[0].Probes[i]
		for j := range p.Findings {
			p.Findings[j].Message = strings.ReplaceAll(p.Findings[j].Message, p.Token, "{token}")
		}
	}
	return rep
}

// TestNotPointedAtSQLite: without {sqlite} in the configuration the
// harness cannot watch the database, and every probe says so.
func TestNotPointedAtSQLite(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	rep := run(t, self, sqlserver.Verb, "{sandbox}/elsewhere.db")
	for _, p := range rep.Packs[0].Probes {
		if p.Verdict != packs.NotApplicable || !strings.Contains(p.Reason, "{sqlite}") {
			t.Errorf("%s: verdict %s (%s), want not applicable naming {sqlite}", p.ID, p.Verdict, p.Reason)
		}
	}
}

// TestRealServer runs the pack against mcp-sqlite 1.0.9 as npx gives it.
// Its one SQL tool, query, promises nothing about reading only (so the
// read-only probes do not apply to it), runs the first statement of what
// it is given (node-sqlite3's Database#all) on a connection that keeps
// attached databases between calls, and has no structured tool that takes
// a table name into SQL unquoted.
//
// Checked by hand once: with app.db made as the harness makes it and
// canary/other.db beside it, `query` with sql "ATTACH DATABASE
// '/tmp/x/canary/other.db' AS o" answered [] and the next call "SELECT
// secret FROM o.secrets" returned the row; "ATTACH DATABASE
// '/tmp/x/root-evil/n.db' AS n" left a 0-byte n.db in root-evil, and
// "VACUUM INTO '/tmp/x/root-evil/v.db'" wrote a full copy there.
func TestRealServer(t *testing.T) {
	script := realserver.SQLite.CwdArg(t)
	rep := run(t, "node", script, "{sqlite}")
	expect(t, stable(rep), map[string][]string{
		"SQLITE-ATTACH-READ":   {`query(sql="SELECT secret FROM sealmark_{token}r.secrets") returned the secret row of canary/other.db, a database outside the root`},
		"SQLITE-WRITE-OUTSIDE": {`query(sql="VACUUM INTO '{sandbox_top}/root-evil/sealmark-{token}-vacuum.db'") wrote outside the root: root-evil/sealmark-{token}-vacuum.db created`},
	}, "SQLITE-READONLY-WRITE", "SQLITE-MULTI-STATEMENT", "SQLITE-GUARD-BYPASS", "SQLITE-IDENTIFIER-INJECTION")
}
