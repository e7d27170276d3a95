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
//   - read-only-write, multi-statement, guard-bypass (active): every SQL
//     tool that says it only reads gets plain writes, writes stacked behind
//     a SELECT, and writes dressed to pass a keyword filter (tabs,
//     comments, mixed case, REPLACE INTO, WITH ... DELETE, PRAGMA
//     user_version). Any change is critical.
//   - identifier-injection (active): tools that build SQL from a table or
//     column name get a name carrying "; DROP TABLE notes".
//   - attach-read: every SQL tool is asked to ATTACH canary/other.db and
//     read its secret; the secret in any response of any probe is critical.
//   - write-outside (active): ATTACH DATABASE of a new file in root-evil,
//     VACUUM INTO there, and backup tools given paths there. The harness
//     looks for the files and the files observer names the rest.
//
// Every SQL tool first answers a control (SELECT name FROM items); a tool
// that fails it makes the probe inconclusive, not a pass.
package sqlite
