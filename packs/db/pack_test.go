package db_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/environ"
	"github.com/sealmark/sealmark/internal/fixture/pgserver"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/packs/db"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

func TestMain(m *testing.M) {
	contain.Dispatch()
	pgserver.Dispatch()
	smbin.Dispatch()
	if os.Getenv(harnessEnv) != "" {
		os.Exit(harness())
	}
	os.Exit(m.Run())
}

func TestPackDefinition(t *testing.T) {
	for _, err := range db.Pack.Check() {
		t.Error(err)
	}
}

// admin is the PostgreSQL the tests use: SEALMARK_DB_ADMIN_DSN, or the
// README's default; the test skips with the reason when it is unreachable.
func admin(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("SEALMARK_DB_ADMIN_DSN")
	if dsn == "" {
		dsn = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Skipf("no PostgreSQL reachable for the db pack (set SEALMARK_DB_ADMIN_DSN): %v", err)
	}
	conn.Close(ctx)
	return dsn
}

// leftovers lists the sealmark_ databases and roles whose comment names
// this process: what a run in this test binary left.
func leftovers(t *testing.T, dsn string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	mine := fmt.Sprintf("%% pid=%d %%", os.Getpid())
	rows, err := conn.Query(ctx, `
		SELECT datname FROM pg_database WHERE datname LIKE 'sealmark\_%' AND shobj_description(oid, 'pg_database') LIKE $1
		UNION ALL
		SELECT rolname FROM pg_roles WHERE rolname LIKE 'sealmark\_%' AND shobj_description(oid, 'pg_authid') LIKE $1`, mine)
	require.NoError(t, err)
	var out []string
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		out = append(out, n)
	}
	return out
}

// service is the admin DSN's address as a declared service: the contained
// server reaches PostgreSQL through it and nothing else.
func service(t *testing.T, dsn string) string {
	t.Helper()
	cfg, err := db.ParseAdmin(dsn)
	require.NoError(t, err)
	return fmt.Sprintf("tcp:%s", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))))
}

// config is a run of the db pack, passive and active, against a server,
// with env added to its environment.
func config(t *testing.T, dsn string, env []string, command string, args ...string) engine.Config {
	t.Helper()
	cfg := engine.Config{Catalog: catalogue.All,
		Command: command, Args: args,
		DBAdminDSN: dsn, Packs: []string{"db"}, Active: true,
		Services: []string{service(t, dsn)},
	}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		cfg.Env = append(cfg.Env, environ.KV{Name: name, Value: value})
	}
	return cfg
}

// run runs the db pack, passive and active, against a server.
func run(t *testing.T, dsn string, env []string, command string, args ...string) *report.Report {
	t.Helper()
	rep := packtest.MustRun(t, config(t, dsn, env, command, args...))
	require.Empty(t, rep.Warnings, "the engine made the run's database for {dsn}")
	return rep
}

// expect checks a report against the probes that must fail, keyed
// "start/PROBE-ID" (packtest.Expect); each start's probes must have run.
// reader/DB-DSN-ECHO runs after the statement timeout on the same server
// session: every fixture exits when the database ends its session, as a
// pooled node-postgres server does, so it passes only when the timeout
// probe cancelled the sleeping statement and left the session alive (the
// no-timeout twin shows it).
func expect(t *testing.T, rep *report.Report, want packtest.Want) {
	t.Helper()
	packtest.Expect(t, rep, want, packtest.Ran("reader/DB-ROLE-REACH", "writer/DB-READONLY-ESCAPE", "reader/DB-STATEMENT-TIMEOUT", "reader/DB-DSN-ECHO", "writer/DB-DSN-ECHO"))
}

// escaped are the escapes a server that sends the text over the simple
// protocol inside BEGIN READ ONLY lets through.
var escaped = []string{
	`query(sql="COMMIT; INSERT INTO items (name) VALUES ('sealmark-{token}-0')") wrote to the database through a read-only tool`,
	`query(sql="ROLLBACK; INSERT INTO items (name) VALUES ('sealmark-{token}-1')") wrote`,
	`query(sql="END; INSERT INTO items (name) VALUES ('sealmark-{token}-2')") wrote`,
	`query(sql="SELECT $q$;$q$; COMMIT; INSERT INTO items (name) VALUES ('sealmark-{token}-9')") wrote`,
	`query(sql="/* ; */ COMMIT /* ; */; INSERT INTO items (name) VALUES ('sealmark-{token}-10')") wrote`,
}

// TestTwins proves every db probe both ways against the fixture server,
// started once per role: the correct server fails none, each twin fails
// exactly the probes its flaw earns; no database or role is left. Each run
// has a database and roles of its own, so the twins run at once.
func TestTwins(t *testing.T) {
	dsn := admin(t)
	self := packtest.Self(t)
	twins := []packtest.Twin{
		{},
		{Flaws: "simple-protocol", Want: packtest.Want{"writer/DB-READONLY-ESCAPE": escaped}},
		{Flaws: "superuser", Want: packtest.Want{
			"reader/DB-ROLE-REACH": {`query(sql="SELECT current_user AS sealmark_user") ran as another role than the one {dsn} names`, `query(sql="SELECT md5(pg_read_file('PG_VERSION')) AS sealmark_sum") read a file of the database server`},
			"writer/DB-ROLE-REACH": {`query(sql="SELECT current_user AS sealmark_user") ran as another role`},
		}},
		{Flaws: "no-timeout", Want: packtest.Want{"reader/DB-STATEMENT-TIMEOUT": {`query(sql="SELECT pg_sleep(60)") got no answer within 5s: the server sets no statement timeout`}}},
		{Flaws: "echo-dsn", Want: packtest.Want{
			"reader/DB-DSN-ECHO": {"the reader role's password appeared in stdout"},
			"writer/DB-DSN-ECHO": {"the writer role's password appeared in stdout"},
		}},
	}
	base := config(t, dsn, []string{"SEALMARK_PGFIXTURE_ADMIN=" + dsn}, self)
	twins = packtest.Short(t, twins, "every db probe's twins against the fixture PostgreSQL server", "correct", "superuser")
	packtest.RunAll(t, twins, func(tw packtest.Twin) engine.Config {
		cfg := base
		cfg.Args = []string{pgserver.Verb, "-flaws=" + tw.Flaws, "{dsn}"}
		return cfg
	}, func(t *testing.T, tw packtest.Twin, r packtest.Result) {
		require.Empty(t, r.Report.Warnings, "the engine made the run's database for {dsn}")
		expect(t, r.Report, tw.Want)
	})
	require.Empty(t, leftovers(t, dsn), "the runs left their databases or roles")
}

// TestDSNInFiles: a server configured by a file gets {dsn} there
// (server.files), each start its own role's: the correct server read
// from its file passes every probe on both starts, which it could not if
// the writer's start read the reader's DSN (role-reach checks
// current_user).
func TestDSNInFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run whose {dsn} reaches the server in its files")
	}
	dsn := admin(t)
	cfg := config(t, dsn, nil, packtest.Self(t), pgserver.Verb, "@{sandbox}/conf/pg.toml")
	cfg.Files = []engine.File{{Path: "conf/pg.toml", Content: "{dsn}\n"}}
	rep := packtest.MustRun(t, cfg)
	require.Empty(t, rep.Warnings, "the engine made the run's database for {dsn}")
	expect(t, rep, nil)
	require.Empty(t, leftovers(t, dsn), "the run left its database or roles")
}

// TestSplitTwins: a server whose write_query refuses SELECT (so it
// returns no rows) beside a read_query is judged through both: role-reach
// by the rows the write tool's INSERTs leave, as the admin connection
// reads them, on the writer start (the reader start notes it), and
// statement-timeout through read_query though write_query comes first.
// Without the effect path the probes were inconclusive on the write
// tool's failed SELECT control.
func TestSplitTwins(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the twins of a server with split read and write tools")
	}
	dsn := admin(t)
	self := packtest.Self(t)
	twins := []packtest.Twin{
		{},
		{Flaws: "superuser", Want: packtest.Want{
			"reader/DB-ROLE-REACH": {`read_query(sql="SELECT current_user AS sealmark_user") ran as another role than the one {dsn} names`},
			"writer/DB-ROLE-REACH": {
				`write_query(sql="INSERT INTO items (name) SELECT 'sealmark-{token}-user-' || current_user") ran as another role than the one {dsn} names`,
				`write_query(sql="INSERT INTO items (name) SELECT md5(pg_read_file('PG_VERSION'))") read a file of the database server (pg_read_file)`,
				`write_query(sql="COPY items (name) FROM PROGRAM 'echo sealmark-{token}-program'") ran a program on the database server`,
				`read_query(sql="SELECT current_user AS sealmark_user") ran as another role`,
			},
		}},
		{Flaws: "no-timeout", Want: packtest.Want{"reader/DB-STATEMENT-TIMEOUT": {`read_query(sql="SELECT pg_sleep(60)") got no answer within 5s`}}},
	}
	base := config(t, dsn, []string{"SEALMARK_PGFIXTURE_ADMIN=" + dsn}, self)
	packtest.RunAll(t, twins, func(tw packtest.Twin) engine.Config {
		cfg := base
		cfg.Args = []string{pgserver.Verb, "-split", "-flaws=" + tw.Flaws, "{dsn}"}
		return cfg
	}, func(t *testing.T, tw packtest.Twin, r packtest.Result) {
		require.Empty(t, r.Report.Warnings, "the engine made the run's database for {dsn}")
		expect(t, r.Report, tw.Want)
	})
	require.Empty(t, leftovers(t, dsn), "the runs left their databases or roles")
}
