// Package db is the pack for PostgreSQL servers: a read-only tool stays
// read-only, the server reaches no more than the role it was given,
// statements are bounded, and the connection string is never echoed.
//
//	e, _ := engine.New(engine.Config{
//		Command:    "node",
//		Args:       []string{"{cwd}/node_modules/@modelcontextprotocol/server-postgres/dist/index.js", "{dsn}"},
//		DBAdminDSN: "postgres://postgres@127.0.0.1:5432/postgres",
//		Packs:      []string{"db"},
//		Active:     true, // read-only-escape writes
//	})
//	rep := e.Run(ctx, engine.Hooks{})
//
// or, in a server's repository, go test -run Packs/db with
// SEALMARK_DB_ADMIN_DSN (or db.admin_dsn) set.
//
// Through the admin DSN, which must reach a loopback server, the pack makes
// a database of its own (sealmark_<random>) with a reader and a writer
// role, and starts the server once per role, each with {dsn} naming that
// role (Pack.Starts): go test shows them as Packs/db/reader/... and
// Packs/db/writer/.... The roles and the database are dropped when the
// starts end. Without an admin DSN the pack is not applicable; it applies
// when a tool takes SQL (a string argument named sql, query or
// statement). The passwords are secrets: masked in every output.
//
// The oracle is the harness's own connection, never the server's word.
//
//   - read-only-escape (active, writer start): a tool that says it only
//     reads gets writes dressed to leave a read-only transaction (COMMIT;,
//     SET TRANSACTION READ WRITE, set_config, a data-modifying CTE, DO,
//     comment and dollar-quote escapes); a row the harness then finds is
//     critical.
//   - role-reach: SQL runs as the role {dsn} names and reaches no other
//     role, no server file (pg_read_file) and no program (COPY ... FROM
//     PROGRAM).
//   - statement-timeout: SELECT pg_sleep(60) must end in an error before
//     the call timeout (medium).
//   - dsn-echo: the connection string and the role's password must not
//     reach a response, an error or the server's log (high).
package db
