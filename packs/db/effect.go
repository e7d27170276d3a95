package db

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sealmark/sealmark/packs"
)

// reachByEffect runs role-reach through a tool that returns no rows
// (write_query refusing SELECT), on the writer start: each question is an
// INSERT into items whose row the admin connection reads back, so the
// tool's answer is never the oracle. A control INSERT must land first;
// false (the probe inconclusive) when it does not.
func reachByEffect(p *packs.Pass, conn *pgx.Conn, t packs.Tool, role Role, fileSum string) bool {
	value := fmt.Sprintf("sealmark-%s-control", p.Token)
	q := fmt.Sprintf("INSERT INTO items (name) VALUES ('%s')", value)
	res, err := call(p, t, q)
	if found, _ := takeRow(p, conn, value); !found {
		p.Inconclusive("control failed: %s did not return the items table's rows, and %s left no row (%s)", describe(t, controlQuery), describe(t, q), brief(res, err))
		return false
	}
	prefix := fmt.Sprintf("sealmark-%s-user-", p.Token)
	q = fmt.Sprintf("INSERT INTO items (name) SELECT '%s' || current_user", prefix)
	_, _ = call(p, t, q)
	if user, ok := takePrefixed(p, conn, prefix); ok && user != role.Name {
		f := p.Reportf("%s ran as another role than the one {dsn} names (%s)", describe(t, q), role.Name)
		f.Severity = packs.High
		f.Evidencef("db", "the harness's admin connection found the row the INSERT made, naming another role")
	}
	q = "INSERT INTO items (name) SELECT md5(pg_read_file('PG_VERSION'))"
	_, _ = call(p, t, q)
	if found, _ := takeRow(p, conn, fileSum); found {
		p.Reportf("%s read a file of the database server (pg_read_file), beyond the role {dsn} names", describe(t, q)).
			Evidencef("db", "the harness's admin connection found the md5 of the data directory's PG_VERSION in items")
	}
	value = fmt.Sprintf("sealmark-%s-program", p.Token)
	q = fmt.Sprintf("COPY items (name) FROM PROGRAM 'echo %s'", value)
	_, _ = call(p, t, q)
	if found, _ := takeRow(p, conn, value); found {
		p.Reportf("%s ran a program on the database server (COPY ... FROM PROGRAM), beyond the role {dsn} names", describe(t, q)).
			Evidencef("db", "the harness's admin connection found the program's output %s in items", value)
	}
	return true
}

// takePrefixed returns what follows prefix in the items row that starts
// with it, as the admin connection reads it, and deletes the row.
func takePrefixed(p *packs.Pass, conn *pgx.Conn, prefix string) (string, bool) {
	ctx, cancel := context.WithTimeout(p.Ctx, adminBound)
	defer cancel()
	var name string
	err := conn.QueryRow(ctx, "DELETE FROM items WHERE starts_with(name, $1) RETURNING name", prefix).Scan(&name)
	if err != nil {
		return "", false
	}
	return strings.TrimPrefix(name, prefix), true
}
