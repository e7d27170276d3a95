// Package sqlite is the pack for SQLite servers: read-only tools stay
// read-only, names never become SQL, and no database file but the one the
// server was given is read or written.
//
//	e, _ := engine.New(engine.Config{
//		Command: "node",
//		Args:    []string{"{cwd}/node_modules/mcp-sqlite/mcp-sqlite-server.js", "{sqlite}"},
//		Packs:   []string{"sqlite"},
//		Active:  true, // the write side
//	})
//	rep := e.Run(ctx, engine.Hooks{})
//
// or, in a server's repository, go test -run Packs/sqlite.
//
// {sqlite} is root/app.db, which the harness stages (tables items, notes
// and secrets, with rows) when the server's configuration names the
// placeholder; canary/other.db, outside the root, holds a second secrets
// table the server is never told about. Without {sqlite} every probe is
// not applicable: the harness must see the database the server writes.
//
// The oracle is the harness's own connection to app.db, never the
// server's word: before each probe app.db is reset, and after each call
// the harness reads every table back (definition, row count, a hash of the
// rows, user_version).
//
// Any tool that takes SQL is a channel, whether or not it returns rows:
// one that refuses SELECT (write_query beside a SELECT-only read_query,
// create_table or alter_table taking a statement) proves it runs SQL by a
// write the harness sees (INSERT INTO notes, CREATE TABLE, ALTER TABLE ...
// ADD COLUMN), and is then judged by what it changes in app.db and on
// the file system. Statements are tried alone and stacked behind one of
// the tool's own kind (CREATE TABLE x (a); ...), for tools that check
// only the start of the text.
//
//   - read-only-write (active): every SQL tool that says it only reads
//     gets plain writes. Any change is critical.
//   - multi-statement, guard-bypass (active): read-only tools get writes
//     stacked behind a SELECT, and writes dressed to pass a keyword filter
//     (tabs, comments, mixed case, REPLACE INTO, WITH ... DELETE, PRAGMA
//     user_version); every other SQL tool gets DROP TABLE notes and
//     DELETE FROM notes alone, and each it refuses stacked behind its own
//     kind of statement, or spelt otherwise (DROP\tTABLE, DROP/**/TABLE,
//     drop table, comments): a guard got round is critical.
//   - identifier-injection (active): tools that build SQL from a table or
//     column name get a name carrying "; DROP TABLE notes".
//   - attach-read: every SQL tool is asked to ATTACH canary/other.db; its
//     secret is read through every tool that returns rows, and (active)
//     copied into app.db by the attaching tool, alone or stacked, where
//     the harness finds it. The secret in any response of any probe is
//     critical.
//   - write-outside (active): ATTACH DATABASE of a new file in root-evil,
//     VACUUM INTO there, alone and stacked, through every SQL tool, and
//     backup tools given paths there. The harness looks for the files and
//     the files observer names the rest.
//   - side-effect-write (active): every tool whose name asks for no write
//     to the database (insights, notes, listing, describing) and every
//     read-only SQL tool is called once; schema or rows it leaves in
//     app.db are a medium finding naming the call.
//
// Every SQL tool first answers a control (the items rows, or a write the
// harness sees); a tool that fails it makes the probe inconclusive, not a
// pass.
package sqlite
