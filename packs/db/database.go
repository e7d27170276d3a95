package db

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Prefix starts the name of every database and role the pack makes, so a
// later run can find what a killed one left.
const Prefix = "sealmark_"

// Database is one throwaway PostgreSQL database with a reader and a writer
// role, made through the admin connection and dropped by Drop.
type Database struct {
	Name     string // sealmark_<12 hex>
	Reader   Role   // SELECT on every table
	Writer   Role   // SELECT, INSERT, UPDATE, DELETE on items
	Canary   string // the one row of the canary table
	admin    *pgx.ConnConfig
	hostPort string
	once     sync.Once
	undo     func()
}

// Role is one login role of a Database.
type Role struct {
	Name, Password string
	DSN            string // postgres://name:password@host:port/db?sslmode=disable
}

// adminBound bounds each of the harness's own steps against PostgreSQL
// through the admin connection: connecting, making and dropping the
// database, and the oracle's reads and deletes. They are the harness's,
// never the server's verdict, and end as soon as PostgreSQL answers, so
// the bound is generous: a machine at a load of 56 kept the admin
// connection waiting past the 5 s it once had, and left a probe
// inconclusive that fails at rest.
const adminBound = 2 * time.Minute

// maxDSN bounds an admin DSN.
const maxDSN = 4 << 10

// ParseAdmin reads an admin DSN (a URL or key=value words) and refuses any
// host that is not a loopback address: the harness contacts nothing else.
// Its errors never quote the DSN, which may hold a password.
func ParseAdmin(dsn string) (*pgx.ConnConfig, error) {
	if len(dsn) > maxDSN {
		return nil, errors.New("db.admin_dsn is longer than 4 KiB")
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, errors.New("db.admin_dsn cannot be parsed as a PostgreSQL connection string")
	}
	ip := net.ParseIP(cfg.Host)
	if cfg.Host == "localhost" {
		ip = net.IPv4(127, 0, 0, 1)
	}
	if ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("db.admin_dsn: host %q is not a loopback address (127.0.0.0/8 or ::1); the harness contacts no other", cfg.Host)
	}
	cfg.Host = ip.String()
	cfg.Fallbacks = nil
	cfg.ConnectTimeout = adminBound
	return cfg, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// owner is the comment a run puts on what it makes: the host, the
// harness's pid and that process's start time, so a later run can tell a
// leftover of a dead run from another live run's.
func owner() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("sealmark run host=%s pid=%d start=%d", host, os.Getpid(), processStart(os.Getpid()))
}

// Create makes the database, its roles and tables. On error it drops what
// it made.
func Create(ctx context.Context, admin *pgx.ConnConfig) (*Database, error) {
	name := Prefix + randomHex(6)
	d := &Database{
		Name:     name,
		Reader:   Role{Name: name + "_reader", Password: randomHex(16)},
		Writer:   Role{Name: name + "_writer", Password: randomHex(16)},
		Canary:   "sm-dbcanary-" + randomHex(12),
		admin:    admin,
		hostPort: net.JoinHostPort(admin.Host, strconv.Itoa(int(admin.Port))),
	}
	for _, r := range []*Role{&d.Reader, &d.Writer} {
		u := url.URL{Scheme: "postgres", User: url.UserPassword(r.Name, r.Password), Host: d.hostPort, Path: "/" + name, RawQuery: "sslmode=disable"}
		r.DSN = u.String()
	}
	if err := d.create(ctx); err != nil {
		d.Drop(context.WithoutCancel(ctx))
		return nil, err
	}
	return d, nil
}

func (d *Database) create(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, d.admin)
	if err != nil {
		return fmt.Errorf("connecting to the admin database: %v", redactErr(err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	mark := owner()
	stmts := []string{
		fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s' NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION", d.Reader.Name, d.Reader.Password),
		fmt.Sprintf("COMMENT ON ROLE %s IS '%s'", d.Reader.Name, mark),
		fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s' NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION", d.Writer.Name, d.Writer.Password),
		fmt.Sprintf("COMMENT ON ROLE %s IS '%s'", d.Writer.Name, mark),
		fmt.Sprintf("CREATE DATABASE %s", d.Name),
		fmt.Sprintf("COMMENT ON DATABASE %s IS '%s'", d.Name, mark),
		fmt.Sprintf("REVOKE ALL ON DATABASE %s FROM PUBLIC", d.Name),
		fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s, %s", d.Name, d.Reader.Name, d.Writer.Name),
	}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("preparing the database: %v", redactErr(err))
		}
	}
	in, err := d.connect(ctx)
	if err != nil {
		return err
	}
	defer in.Close(context.WithoutCancel(ctx))
	stmts = []string{
		"REVOKE ALL ON SCHEMA public FROM PUBLIC",
		fmt.Sprintf("GRANT USAGE ON SCHEMA public TO %s, %s", d.Reader.Name, d.Writer.Name),
		"CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL, qty integer NOT NULL DEFAULT 1)",
		"INSERT INTO items (name, qty) VALUES ('apple', 3), ('pear', 5), ('plum', 7)",
		"CREATE TABLE canary (secret text NOT NULL)",
		fmt.Sprintf("INSERT INTO canary VALUES ('%s')", d.Canary),
		"CREATE PROCEDURE sealmark_touch(v text) LANGUAGE sql AS $$ INSERT INTO items (name) VALUES (v) $$",
		fmt.Sprintf("GRANT SELECT ON items, canary TO %s", d.Reader.Name),
		fmt.Sprintf("GRANT SELECT, INSERT, UPDATE, DELETE ON items TO %s", d.Writer.Name),
		fmt.Sprintf("GRANT SELECT ON canary TO %s", d.Writer.Name),
		fmt.Sprintf("GRANT USAGE ON SEQUENCE items_id_seq TO %s", d.Writer.Name),
	}
	for _, s := range stmts {
		if _, err := in.Exec(ctx, s); err != nil {
			return fmt.Errorf("preparing the database: %v", redactErr(err))
		}
	}
	return nil
}

// connect opens an admin connection to the database itself: the oracle.
func (d *Database) connect(ctx context.Context) (*pgx.Conn, error) {
	cfg := d.admin.Copy()
	cfg.Database = d.Name
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s as the admin: %v", d.Name, redactErr(err))
	}
	return conn, nil
}

// Drop drops the database (closing the sessions still in it) and both
// roles. It is safe to call more than once.
func (d *Database) Drop(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, adminBound)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, d.admin)
	if err != nil {
		return fmt.Errorf("dropping %s: %v", d.Name, redactErr(err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return dropAll(ctx, conn, d.Name, []string{d.Reader.Name, d.Writer.Name})
}

func dropAll(ctx context.Context, conn *pgx.Conn, name string, roles []string) error {
	var errs []error
	if _, err := conn.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", pgx.Identifier{name}.Sanitize())); err != nil {
		errs = append(errs, err)
	}
	for _, r := range roles {
		if _, err := conn.Exec(ctx, fmt.Sprintf("DROP ROLE IF EXISTS %s", pgx.Identifier{r}.Sanitize())); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("dropping %s: %v", name, redactErr(errors.Join(errs...)))
	}
	return nil
}

// Sweep drops the sealmark_ databases and roles that a run on this host
// left when it was killed: those whose comment names a harness process
// that no longer exists. It returns what it dropped.
func Sweep(ctx context.Context, admin *pgx.ConnConfig) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, adminBound)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		return nil, &unreachableError{fmt.Sprintf("the admin database at %s cannot be reached: %v", net.JoinHostPort(admin.Host, strconv.Itoa(int(admin.Port))), redactErr(err))}
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, `
		SELECT d.datname, coalesce(shobj_description(d.oid, 'pg_database'), '') FROM pg_database d WHERE d.datname LIKE 'sealmark\_%'
		UNION ALL
		SELECT r.rolname, coalesce(shobj_description(r.oid, 'pg_authid'), '') FROM pg_roles r WHERE r.rolname LIKE 'sealmark\_%'`)
	if err != nil {
		return nil, fmt.Errorf("sweeping: %v", redactErr(err))
	}
	stale := map[string][]string{} // database name → its roles
	for rows.Next() {
		var name, comment string
		if rows.Scan(&name, &comment) != nil || !dead(comment) {
			continue
		}
		base := name
		for _, suffix := range []string{"_reader", "_writer"} {
			if b, ok := strings.CutSuffix(name, suffix); ok {
				base = b
				stale[base] = append(stale[base], name)
			}
		}
		if _, ok := stale[base]; !ok {
			stale[base] = nil
		}
	}
	rows.Close()
	var dropped []string
	var errs []error
	for name, roles := range stale {
		if err := dropAll(ctx, conn, name, roles); err != nil {
			errs = append(errs, err)
			continue
		}
		dropped = append(dropped, append([]string{name}, roles...)...)
	}
	return dropped, errors.Join(errs...)
}

// dead reports whether an owner comment names a harness process on this
// host that is gone. A comment of another host, or none, is left alone.
func dead(comment string) bool {
	f := map[string]string{}
	rest, ok := strings.CutPrefix(comment, "sealmark run ")
	if !ok {
		return false
	}
	for _, w := range strings.Fields(rest) {
		k, v, _ := strings.Cut(w, "=")
		f[k] = v
	}
	if processStart(os.Getpid()) == 0 {
		return false // no /proc: whether the owner lives cannot be told
	}
	host, _ := os.Hostname()
	pid, err := strconv.Atoi(f["pid"])
	if f["host"] != host || err != nil || pid <= 0 {
		return false
	}
	start, _ := strconv.ParseUint(f["start"], 10, 64)
	now := processStart(pid)
	return now == 0 || (start != 0 && now != start)
}

// processStart is the start time of pid in clock ticks since boot, from
// /proc; 0 when the process does not exist (or /proc cannot tell).
func processStart(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(fields[19], 10, 64)
	return v
}

// redactErr keeps an error's text but never a connection string: pgx
// errors may name the host and user, never the password, but a DSN may be
// quoted by a server's message.
func redactErr(err error) string {
	s := err.Error()
	if i := strings.Index(s, "postgres://"); i >= 0 {
		s = s[:i] + "<dsn>"
	}
	return s
}

// unreachableError is an admin database that cannot be reached.
type unreachableError struct{ msg string }

func (e *unreachableError) Error() string { return e.msg }
