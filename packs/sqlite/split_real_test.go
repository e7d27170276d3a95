package sqlite_test

import (
	"testing"

	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// TestRealSplitServer runs the pack against
// @executeautomation/database-server 1.1.0 as npx gives it, a public
// SQLite server with split tools: read_query runs only text starting with
// select (db.all, the first statement), write_query only insert, update
// or delete (db.run, the first statement), create_table and alter_table
// check only that the text starts with "create table" or "alter table"
// and then run all of it (db.exec), on one connection for the server's
// life; append_insight and list_insights make a table mcp_insights in the
// user's database. No tool both attaches and returns rows, so the
// findings below are all by effect.
//
// Checked by hand once with raw JSON-RPC over stdio (initialize,
// notifications/initialized, then tools/call; node dist/src/index.js
// /tmp/hv/x/root/app.db, with app.db made as the harness makes it and
// canary/other.db holding a secrets table beside root):
//   - create_table "DROP TABLE notes" was refused ("Only CREATE TABLE
//     statements are allowed"); "CREATE TABLE t1 (a); DROP TABLE notes"
//     answered "Table created successfully" and notes was gone.
//   - create_table "CREATE TABLE t2 (a); ATTACH DATABASE
//     '/tmp/hv/x/canary/other.db' AS o; CREATE TABLE copy AS SELECT secret
//     FROM o.secrets" left other.db's secret in app.db's table copy, and
//     read_query "SELECT secret FROM o.secrets" then returned it.
//   - alter_table "ALTER TABLE items ADD COLUMN z; VACUUM INTO
//     '/tmp/hv/x/root-evil/v.db'" wrote v.db; create_table "CREATE TABLE
//     t3 (a); ATTACH DATABASE '/tmp/hv/x/root-evil/n.db' AS n; CREATE
//     TABLE n.t (a)" wrote n.db.
//   - append_insight {"insight": "hello"} left a table mcp_insights in
//     app.db.
//   - write_query "ATTACH DATABASE ..." was refused (only INSERT, UPDATE
//     or DELETE), and stacked statements behind an INSERT never ran.
func TestRealSplitServer(t *testing.T) {
	script := realserver.DatabaseServer.CwdArg(t)
	rep := packtest.MustRun(t, config("node", script, "{sqlite}"))
	packtest.Expect(t, rep, packtest.Want{
		"SQLITE-MULTI-STATEMENT": {
			`create_table(query="CREATE TABLE sealmark_{token}_p (a); DROP TABLE notes") ran a write the tool refuses alone (create_table(query="DROP TABLE notes") changed nothing): table notes dropped`,
			`create_table(query="CREATE TABLE sealmark_{token}_p (a);DROP TABLE notes") ran a write`,
			`create_table(query="CREATE TABLE sealmark_{token}_p (a); DELETE FROM notes") ran a write the tool refuses alone (create_table(query="DELETE FROM notes") changed nothing): notes: 2 rows → 0`,
			`create_table(query="CREATE TABLE sealmark_{token}_p (a);DELETE FROM notes") ran a write`,
			`alter_table(query="ALTER TABLE items ADD COLUMN sealmark_{token}_p1; DROP TABLE notes") ran a write the tool refuses alone (alter_table(query="DROP TABLE notes") changed nothing): table notes dropped`,
			`alter_table(query="ALTER TABLE items ADD COLUMN sealmark_{token}_p2;DROP TABLE notes") ran a write`,
			`alter_table(query="ALTER TABLE items ADD COLUMN sealmark_{token}_p3; DELETE FROM notes") ran a write`,
			`alter_table(query="ALTER TABLE items ADD COLUMN sealmark_{token}_p4;DELETE FROM notes") ran a write`,
		},
		"SQLITE-ATTACH-READ": {
			`create_table(query="CREATE TABLE sealmark_{token}_p (a); ATTACH DATABASE '{sandbox_top}/canary/other.db' AS sealmark_{token}r; CREATE TABLE sealmark_{token}_copy AS SELECT secret FROM sealmark_{token}r.secrets; DETACH DATABASE sealmark_{token}r") copied the secret row of canary/other.db, a database outside the root, into app.db`,
			`alter_table(query="ALTER TABLE items ADD COLUMN sealmark_{token}_p1; ATTACH DATABASE '{sandbox_top}/canary/other.db' AS sealmark_{token}r; INSERT INTO notes (body) SELECT secret FROM sealmark_{token}r.secrets; DETACH DATABASE sealmark_{token}r") copied the secret row`,
		},
		"SQLITE-WRITE-OUTSIDE": {
			`create_table(query="CREATE TABLE sealmark_{token}_p (a); ATTACH DATABASE '{sandbox_top}/root-evil/sealmark-{token}-attach.db' AS sealmark_{token}w; CREATE TABLE sealmark_{token}w.t (a); DETACH DATABASE sealmark_{token}w") wrote outside the root: root-evil/sealmark-{token}-attach.db created`,
			`create_table(query="CREATE TABLE sealmark_{token}_p (a); VACUUM INTO '{sandbox_top}/root-evil/sealmark-{token}-vacuum.db'") wrote outside the root: root-evil/sealmark-{token}-vacuum.db created`,
			`alter_table(query="ALTER TABLE items ADD COLUMN sealmark_{token}_p1; ATTACH DATABASE '{sandbox_top}/root-evil/sealmark-{token}-attach.db' AS sealmark_{token}w; CREATE TABLE sealmark_{token}w.t (a); DETACH DATABASE sealmark_{token}w") wrote outside the root`,
			`alter_table(query="ALTER TABLE items ADD COLUMN sealmark_{token}_p2; VACUUM INTO '{sandbox_top}/root-evil/sealmark-{token}-vacuum.db'") wrote outside the root: root-evil/sealmark-{token}-vacuum.db created`,
		},
		"SQLITE-SIDE-EFFECT-WRITE": {
			`append_insight(insight=…) changed app.db, which it was not asked to write: table mcp_insights created`,
			`list_insights() changed app.db, which it was not asked to write: table mcp_insights created`,
		},
	}, packtest.OnlyNotApplicable())
}
