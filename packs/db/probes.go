package db

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sealmark/sealmark/packs"
)

// sqlTools returns the tools that take SQL, and the name of their SQL
// argument; readOnly keeps those that promise to only read.
func sqlTools(p *packs.Pass, readOnly bool) []packs.Tool {
	var out []packs.Tool
	for _, t := range p.Surface.Tools {
		if t.SQLArg() != "" && (!readOnly || t.SaysReadOnly()) {
			out = append(out, t)
		}
	}
	return out
}

// call runs one query through a tool, other arguments synthesized; nil
// when there is no answer (err says why).
func call(p *packs.Pass, t packs.Tool, q string) (*packs.Response, error) {
	args, _ := packs.Arguments(t.InputSchema, p.Token, map[string]any{t.SQLArg(): q})
	return p.Call(t.Name, args)
}

func describe(t packs.Tool, q string) string { return fmt.Sprintf("%s(%s=%q)", t.Name, t.SQLArg(), q) }

// controlQuery is the read control: the items table's rows.
const controlQuery = "SELECT name FROM items ORDER BY id"

// control asks the tool for the items table; false (and the probe
// inconclusive) when it cannot.
func control(p *packs.Pass, t packs.Tool) bool {
	if ok, why := reads(p, t); !ok {
		p.Inconclusive("control failed: %s did not return the items table's rows (%s)", describe(t, controlQuery), why)
		return false
	}
	return true
}

// reads reports whether the tool returned the items table's rows, and
// what it answered when it did not.
func reads(p *packs.Pass, t packs.Tool) (bool, string) {
	res, err := call(p, t, controlQuery)
	if err != nil || res.Refused() || !bytes.Contains(res.Body(), []byte("apple")) || !bytes.Contains(res.Body(), []byte("plum")) {
		return false, brief(res, err)
	}
	return true, ""
}

func brief(res *packs.Response, err error) string {
	if err != nil {
		return err.Error()
	}
	b := res.Body()
	if len(b) > 160 {
		b = append(b[:160:160], "…"...)
	}
	return string(b)
}

// oracle opens the harness's own admin connection to the database.
func oracle(p *packs.Pass, d *Database) *pgx.Conn {
	ctx, cancel := context.WithTimeout(p.Ctx, adminBound)
	defer cancel()
	conn, err := d.connect(ctx)
	if err != nil {
		p.Inconclusive("the harness's own connection to the database failed: %v", err)
		return nil
	}
	return conn
}

// escapes are writes wrapped to leave a read-only transaction, or to pass
// a keyword filter; %s is the value each inserts.
// takeRow reports whether items holds a row named value, as the harness's
// admin connection sees it, and deletes it.
func takeRow(p *packs.Pass, conn *pgx.Conn, value string) (bool, error) {
	ctx, cancel := context.WithTimeout(p.Ctx, adminBound)
	defer cancel()
	tag, err := conn.Exec(ctx, "DELETE FROM items WHERE name = $1", value)
	return err == nil && tag.RowsAffected() > 0, err
}

var escapes = []string{
	"COMMIT; INSERT INTO items (name) VALUES ('%s')",
	"ROLLBACK; INSERT INTO items (name) VALUES ('%s')",
	"END; INSERT INTO items (name) VALUES ('%s')",
	"SET TRANSACTION READ WRITE; INSERT INTO items (name) VALUES ('%s')",
	"SELECT set_config('transaction_read_only', 'off', true); INSERT INTO items (name) VALUES ('%s')",
	"BEGIN READ WRITE; INSERT INTO items (name) VALUES ('%s')",
	"WITH x AS (INSERT INTO items (name) VALUES ('%s') RETURNING id) SELECT id FROM x",
	"DO $$BEGIN INSERT INTO items (name) VALUES ('%s'); END$$",
	"CALL sealmark_touch('%s')",
	"SELECT $q$;$q$; COMMIT; INSERT INTO items (name) VALUES ('%s')",
	"/* ; */ COMMIT /* ; */; INSERT INTO items (name) VALUES ('%s')",
}

var readOnlyEscape = packs.Probe{
	ID: "DB-READONLY-ESCAPE", Name: "read-only-escape", Severity: packs.Critical, CWE: "CWE-89", Active: true,
	Doc: "a read-only SQL tool must keep a role that may write from writing: no COMMIT;, ROLLBACK;, END;, SET TRANSACTION READ WRITE, set_config, BEGIN READ WRITE, data-modifying CTE, DO, CALL, dollar-quote or comment escape",
	Run: func(p *packs.Pass) {
		d, role := database(p)
		if d == nil {
			return
		}
		if role.Name != d.Writer.Name {
			p.NotApplicable("the reader role cannot write whatever the server does: the escapes are tried on the writer start")
			return
		}
		tools := sqlTools(p, true)
		if len(tools) == 0 {
			p.NotApplicable("no SQL tool says it only reads (readOnlyHint, or read/select in its name, or read-only in its description)")
			return
		}
		conn := oracle(p, d)
		if conn == nil {
			return
		}
		defer conn.Close(context.Background())
		for _, t := range tools {
			if !control(p, t) {
				return
			}
			for i, tmpl := range escapes {
				value := fmt.Sprintf("sealmark-%s-%d", p.Token, i)
				q := fmt.Sprintf(tmpl, value)
				if _, err := call(p, t, q); err != nil && errors.Is(err, packs.ErrClosed) {
					p.Inconclusive("the server exited during %s", describe(t, q))
					return
				}
				found, err := takeRow(p, conn, value)
				if err != nil {
					p.Inconclusive("the harness's own connection failed: %v", err)
					return
				}
				if found {
					p.Reportf("%s wrote to the database through a read-only tool", describe(t, q)).
						Evidencef("db", "the harness's admin connection found the row %s in items", value)
				}
			}
		}
	},
}

var roleReach = packs.Probe{
	ID: "DB-ROLE-REACH", Name: "role-reach", Severity: packs.Critical, CWE: "CWE-250",
	Doc: "the server must run SQL as the role {dsn} names and reach no more than it: no other role, no server file (pg_read_file), no program (COPY ... FROM PROGRAM)",
	Run: func(p *packs.Pass) {
		d, role := database(p)
		if d == nil {
			return
		}
		tools := sqlTools(p, false)
		conn := oracle(p, d)
		if conn == nil {
			return
		}
		defer conn.Close(context.Background())
		ctx, cancel := context.WithTimeout(p.Ctx, adminBound)
		var fileSum string
		err := conn.QueryRow(ctx, "SELECT md5(pg_read_file('PG_VERSION'))").Scan(&fileSum)
		cancel()
		if err != nil {
			p.Inconclusive("the harness's admin connection cannot read PG_VERSION itself: %v", err)
			return
		}
		for _, t := range tools {
			if ok, why := reads(p, t); !ok {
				// A tool that returns no rows (write_query beside a
				// read_query) is judged by its effect: the writer's
				// INSERTs, which the admin connection finds.
				switch {
				case role.Name != d.Writer.Name:
					p.Notef("%s returns no rows (%s): it is judged by its effect on the writer start", t.Name, why)
				case !p.Active:
					p.Inconclusive("control failed: %s did not return the items table's rows (%s); a tool that returns no rows is judged by its effect, with --active", describe(t, controlQuery), why)
					return
				default:
					if !reachByEffect(p, conn, t, role, fileSum) {
						return
					}
				}
				continue
			}
			q := "SELECT current_user AS sealmark_user"
			if res, err := call(p, t, q); err == nil && !res.Refused() && !bytes.Contains(res.Body(), []byte(role.Name)) {
				f := p.Reportf("%s ran as another role than the one {dsn} names (%s)", describe(t, q), role.Name)
				f.Severity = packs.High
				f.Evidencef("response", "the result does not name %s", role.Name)
			}
			q = "SELECT md5(pg_read_file('PG_VERSION')) AS sealmark_sum"
			if res, err := call(p, t, q); err == nil && bytes.Contains(res.Body(), []byte(fileSum)) {
				p.Reportf("%s read a file of the database server (pg_read_file), beyond the role {dsn} names", describe(t, q)).
					Evidencef("response", "the result holds the md5 of the data directory's PG_VERSION, as the admin computes it")
			}
			value := fmt.Sprintf("sealmark-%s-program", p.Token)
			q = fmt.Sprintf("COPY items (name) FROM PROGRAM 'echo %s'", value)
			_, _ = call(p, t, q)
			if found, _ := takeRow(p, conn, value); found {
				p.Reportf("%s ran a program on the database server (COPY ... FROM PROGRAM), beyond the role {dsn} names", describe(t, q)).
					Evidencef("db", "the harness's admin connection found the program's output %s in items", value)
			}
		}
	},
}

// sleepQuery is a statement that runs for a minute unless the server
// bounds it.
const sleepQuery = "SELECT pg_sleep(60)"

var statementTimeout = packs.Probe{
	ID: "DB-STATEMENT-TIMEOUT", Name: "statement-timeout", Severity: packs.Medium, CWE: "CWE-400",
	Doc: "the server must bound a statement's run time: SELECT pg_sleep(60) must end in an error before the call timeout",
	Run: func(p *packs.Pass) {
		d, role := database(p)
		if d == nil {
			return
		}
		if role.Name != d.Reader.Name {
			p.NotApplicable("the statement timeout does not depend on the role: it is checked on the reader start")
			return
		}
		// The first tool that returns rows: a write tool beside it
		// (write_query refusing SELECT) cannot run the sleep as the reader.
		var t packs.Tool
		var failed []string
		for _, c := range sqlTools(p, false) {
			ok, why := reads(p, c)
			if ok {
				t = c
				break
			}
			failed = append(failed, fmt.Sprintf("%s did not return the items table's rows (%s)", describe(c, controlQuery), why))
		}
		if t.Name == "" {
			if len(failed) > 0 {
				p.Inconclusive("control failed: %s", strings.Join(failed, "; "))
			}
			return
		}
		res, err := call(p, t, sleepQuery)
		// Whatever the answer, no statement of the database may go on
		// sleeping; the harness ends it from a session of its own.
		if conn := oracle(p, d); conn != nil {
			if n := cancelSleep(conn, d.Name); n > 0 {
				p.Notef("the harness cancelled %d sleeping statement(s); the server's own session was left open", n)
			}
			conn.Close(context.Background())
		}
		switch {
		case errors.Is(err, packs.ErrNoAnswer):
			p.Reportf("%s got no answer within %s: the server sets no statement timeout", describe(t, sleepQuery), p.CallTimeout).
				Evidencef("response", "no answer before the call timeout; the harness ended the sleeping session itself")
		case err != nil:
			p.Inconclusive("%s: %v", describe(t, sleepQuery), err)
		case !res.Refused():
			p.Notef("%s answered with a result (%s)", describe(t, sleepQuery), brief(res, nil))
		}
	},
}

var dsnEcho = packs.Probe{
	ID: "DB-DSN-ECHO", Name: "dsn-echo", Severity: packs.High, CWE: "CWE-209",
	Doc: "the server must never echo its connection string or the role's password, in a response, an error or its log",
	Run: func(p *packs.Pass) {
		d, role := database(p)
		if d == nil {
			return
		}
		tools := sqlTools(p, false)
		var unanswered []string
		for _, t := range tools {
			for _, q := range []string{"SELEC 1", "SELECT * FROM sealmark_no_such_table"} {
				if _, err := call(p, t, q); err != nil {
					unanswered = append(unanswered, fmt.Sprintf("%s (%v)", describe(t, q), err))
				}
			}
		}
		var where []string
		for _, f := range p.Server.Frames(0) {
			if bytes.Contains(f.Data, []byte(role.Password)) {
				where = append(where, "stdout ("+p.Server.Describe(f)+")")
				break
			}
		}
		if bytes.Contains(p.Server.Log(), []byte(role.Password)) {
			where = append(where, "the server log")
		}
		if len(where) > 0 {
			f := p.Reportf("the %s role's password appeared in %s", strings.TrimPrefix(role.Name, d.Name+"_"), strings.Join(where, " and "))
			for _, w := range where {
				f.Evidencef("response", "the password {dsn} carries is in %s", w)
			}
			return
		}
		if len(unanswered) > 0 {
			// An error the server never made cannot have echoed anything.
			p.Inconclusive("no answer to %s", strings.Join(unanswered, "; "))
		}
	},
}

// cancelSleep cancels the probe's sleeping statement in the database from
// the harness's own session and returns how many it cancelled. It cancels
// the statement (pg_cancel_backend), never the session: the session
// belongs to the server, which may hold it in a pool for every later call
// (an HTTP server's pool), and ending it would kill the server, not the
// statement. It waits for the statement to end, within adminBound.
func cancelSleep(conn *pgx.Conn, dbName string) int {
	ctx, cancel := context.WithTimeout(context.Background(), adminBound)
	defer cancel()
	const sleeping = "datname = $1 AND pid <> pg_backend_pid() AND state = 'active' AND strpos(query, $2) > 0"
	n := 0
	for ctx.Err() == nil {
		var left int
		if conn.QueryRow(ctx, "SELECT count(pg_cancel_backend(pid)) FROM pg_stat_activity WHERE "+sleeping, dbName, sleepQuery).Scan(&left) != nil || left == 0 {
			return n
		}
		n = max(n, left)
		time.Sleep(100 * time.Millisecond)
	}
	return n
}
