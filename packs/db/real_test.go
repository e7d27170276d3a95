package db_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/db"
)

// TestRealServer runs the pack against server-postgres 0.6.2 as npx gives
// it, contained (every layer on, the run STANDARD), once per role.
//
// Checked by hand once: with a role that may INSERT into items, the
// server's query tool refused "INSERT INTO items ..." ("cannot execute
// INSERT in a read-only transaction") but "COMMIT; INSERT INTO items
// (name) VALUES ('escaped')" answered an empty result and psql then showed
// the row: node-postgres sends text without parameters over the simple
// protocol, so COMMIT ends the server's BEGIN TRANSACTION READ ONLY and the
// INSERT runs in autocommit. "SELECT pg_sleep(3)" answered after 3 s: the
// server sets no statement timeout. Its errors carry PostgreSQL's message
// only, never the DSN.
func TestRealServer(t *testing.T) {
	dsn := admin(t)
	script := realserver.Postgres062.CwdArg(t)
	rep := run(t, dsn, nil, "node", script, "{dsn}")
	require.Equal(t, "STANDARD", string(rep.Class), "the run is contained and standard: %v", rep.ClassReasons)
	expect(t, rep, map[string][]string{
		"writer/DB-READONLY-ESCAPE":   escaped,
		"reader/DB-STATEMENT-TIMEOUT": {`query(sql="SELECT pg_sleep(60)") got no answer within 5s: the server sets no statement timeout`},
	})
	require.Empty(t, leftovers(t, dsn), "the run left its database or roles")
}

// harnessEnv turns this test binary into a harness running the db pack
// against server-postgres 0.6.2, as the CLI does: the first SIGINT cancels
// the run.
const harnessEnv = "SEALMARK_DBTEST_HARNESS"

func harness() int {
	ctx, cancel := context.WithCancel(context.Background())
	stop := cleanup.OnSignal(func(os.Signal) { cancel() })
	defer stop()
	e, err := engine.New(engine.Config{
		Command: "node", Args: []string{os.Getenv(harnessEnv), "{dsn}"},
		Catalog: []packs.Pack{db.New(os.Getenv("SEALMARK_DB_ADMIN_DSN"))}, Packs: []string{"db"}, Active: true,
		Services:    []string{os.Getenv("SEALMARK_DBTEST_SERVICE")},
		CallTimeout: 5 * time.Second,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	rep := e.Run(ctx, engine.Hooks{})
	fmt.Fprintf(os.Stderr, "harness error: %s\n", rep.HarnessError)
	return 0
}

// TestSIGINTMidPackLeavesNothing interrupts a harness while the db pack
// runs against the real server (its database exists, the server is
// started) and checks that the database and both roles are gone when it
// exits.
func TestSIGINTMidPackLeavesNothing(t *testing.T) {
	dsn := admin(t)
	script := realserver.Postgres062.Script(t)
	self, err := os.Executable()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), harnessEnv+"="+script, "SEALMARK_DB_ADMIN_DSN="+dsn, "SEALMARK_DBTEST_SERVICE="+service(t, dsn))
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	conn, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	mine := fmt.Sprintf("%% pid=%d %%", cmd.Process.Pid)
	var name string
	deadline := time.Now().Add(60 * time.Second)
	for name == "" && time.Now().Before(deadline) {
		_ = conn.QueryRow(context.Background(), `SELECT datname FROM pg_database WHERE datname LIKE 'sealmark\_%' AND shobj_description(oid, 'pg_database') LIKE $1`, mine).Scan(&name)
		if name == "" {
			time.Sleep(100 * time.Millisecond)
		}
	}
	require.NotEmpty(t, name, "the harness never made its database: %s", stderr.String())
	// Wait until the server holds a session in it as one of the roles: the
	// pack's probes are running.
	running := false
	for !running && time.Now().Before(deadline) {
		var n int
		_ = conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND usename LIKE $2", name, name+"\\_%").Scan(&n)
		if running = n > 0; !running {
			time.Sleep(100 * time.Millisecond)
		}
	}
	require.True(t, running, "the server never opened a session as one of the roles: %s", stderr.String())
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		t.Fatalf("the harness did not exit within 60s of SIGINT: %s", stderr.String())
	}
	require.Contains(t, stderr.String(), "interrupted", "the run was not interrupted mid-pack")
	var left []string
	rows, err := conn.Query(context.Background(), `SELECT datname FROM pg_database WHERE datname LIKE $1 UNION ALL SELECT rolname FROM pg_roles WHERE rolname LIKE $1`, name+"%")
	require.NoError(t, err)
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		left = append(left, n)
	}
	require.Empty(t, left, "after SIGINT: %s", strings.TrimSpace(stderr.String()))
}
