package db

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// adminDSN is the PostgreSQL the tests use: SEALMARK_DB_ADMIN_DSN, or the
// README's default, the local server on 127.0.0.1:5432.
func adminDSN() string {
	if v := os.Getenv("SEALMARK_DB_ADMIN_DSN"); v != "" {
		return v
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// adminOrSkip connects to the admin database, skipping the test with the
// reason when none is reachable.
func adminOrSkip(t *testing.T) (*pgx.ConnConfig, *pgx.Conn) {
	t.Helper()
	cfg, err := ParseAdmin(adminDSN())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Skipf("no PostgreSQL reachable at %s:%d (set SEALMARK_DB_ADMIN_DSN): %v", cfg.Host, cfg.Port, redactErr(err))
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return cfg, conn
}

// exists reports whether a database or role of that name exists.
func exists(t *testing.T, conn *pgx.Conn, name string) bool {
	t.Helper()
	var n int
	err := conn.QueryRow(context.Background(),
		"SELECT (SELECT count(*) FROM pg_database WHERE datname = $1) + (SELECT count(*) FROM pg_roles WHERE rolname = $1)", name).Scan(&n)
	require.NoError(t, err)
	return n > 0
}

func TestParseAdminRefusesNonLoopback(t *testing.T) {
	for _, dsn := range []string{
		"postgres://u:pw@10.0.0.5:5432/db",
		"host=db.example password=hunter2",
		"postgres://u:pw@192.168.1.1/db",
	} {
		_, err := ParseAdmin(dsn)
		require.Error(t, err, dsn)
		require.NotContains(t, err.Error(), "pw")
		require.NotContains(t, err.Error(), "hunter2")
	}
	for _, dsn := range []string{"postgres://postgres@127.0.0.1:5432/postgres", "host=localhost user=postgres", "postgres://p@[::1]:5432/x"} {
		_, err := ParseAdmin(dsn)
		require.NoError(t, err, dsn)
	}
}

// TestCreateAndDrop makes the throwaway database and its roles, checks
// what each role may do, and drops them all.
func TestCreateAndDrop(t *testing.T) {
	admin, conn := adminOrSkip(t)
	ctx := context.Background()
	d, err := Create(ctx, admin)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Drop(ctx) })
	for _, name := range []string{d.Name, d.Reader.Name, d.Writer.Name} {
		require.True(t, exists(t, conn, name), name)
	}
	var comment string
	require.NoError(t, conn.QueryRow(ctx, "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1", d.Name).Scan(&comment))
	require.Contains(t, comment, "sealmark run host=")

	reader, err := pgx.Connect(ctx, d.Reader.DSN)
	require.NoError(t, err)
	var secret string
	require.NoError(t, reader.QueryRow(ctx, "SELECT secret FROM canary").Scan(&secret))
	require.Equal(t, d.Canary, secret)
	_, err = reader.Exec(ctx, "INSERT INTO items (name) VALUES ('x')")
	require.ErrorContains(t, err, "permission denied", "the reader role may not write")
	reader.Close(ctx)

	writer, err := pgx.Connect(ctx, d.Writer.DSN)
	require.NoError(t, err)
	_, err = writer.Exec(ctx, "INSERT INTO items (name) VALUES ('x')")
	require.NoError(t, err, "the writer role may write items")
	_, err = writer.Exec(ctx, "SELECT pg_read_file('PG_VERSION')")
	require.ErrorContains(t, err, "permission denied", "the writer is no superuser")
	writer.Close(ctx)

	require.NoError(t, d.Drop(ctx))
	for _, name := range []string{d.Name, d.Reader.Name, d.Writer.Name} {
		require.False(t, exists(t, conn, name), name)
	}
}

// TestSweepDropsADeadRunsLeftovers: a database and roles whose comment
// names a harness process that has exited are dropped by the next run's
// sweep; this run's own are kept.
func TestSweepDropsADeadRunsLeftovers(t *testing.T) {
	admin, conn := adminOrSkip(t)
	ctx := context.Background()
	mine, err := Create(ctx, admin)
	require.NoError(t, err)
	t.Cleanup(func() { _ = mine.Drop(ctx) })
	left, err := Create(ctx, admin)
	require.NoError(t, err)
	t.Cleanup(func() { _ = left.Drop(ctx) })

	gone := exec.Command("true")
	require.NoError(t, gone.Run())
	host, _ := os.Hostname()
	dead := "sealmark run host=" + host + " pid=" + strconv.Itoa(gone.Process.Pid) + " start=1"
	for _, s := range []string{"COMMENT ON DATABASE " + left.Name, "COMMENT ON ROLE " + left.Reader.Name, "COMMENT ON ROLE " + left.Writer.Name} {
		_, err := conn.Exec(ctx, s+" IS '"+dead+"'")
		require.NoError(t, err)
	}
	dropped, err := Sweep(ctx, admin)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{left.Name, left.Reader.Name, left.Writer.Name}, dropped)
	for _, name := range []string{left.Name, left.Reader.Name, left.Writer.Name} {
		require.False(t, exists(t, conn, name), name)
	}
	require.True(t, exists(t, conn, mine.Name), "the live run's database was swept")
}
