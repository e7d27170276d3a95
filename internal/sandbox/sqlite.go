package sandbox

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver: no cgo
)

// SQLite is the sqlite pack's pair of databases: root/app.db, the database
// the server is pointed at ({sqlite}), and canary/other.db outside the
// root, which the server is never told about.
type SQLite struct {
	App         string // root/app.db: items and notes with rows, and a secrets table holding AppSecret
	Other       string // canary/other.db: a secrets table holding OtherSecret
	AppSecret   string // the secrets row of app.db: reading it through the server is allowed
	OtherSecret string // the secrets row of other.db: the server must never return it
}

// StageSQLite makes app.db in root and other.db in canary (a sandbox's
// Root and Canary), each with a fresh secret row. The sqlite pack stages
// them only when the server is pointed at {sqlite}.
func StageSQLite(root, canary string) (*SQLite, error) {
	db := &SQLite{
		App:         filepath.Join(root, "app.db"),
		Other:       filepath.Join(canary, "other.db"),
		AppSecret:   "sm-dbsecret-" + randomHex(12),
		OtherSecret: newSecret(),
	}
	if err := ResetSQLite(db.App, db.AppSecret); err != nil {
		return nil, err
	}
	if err := ResetSQLite(db.Other, db.OtherSecret); err != nil {
		return nil, err
	}
	return db, nil
}

// appSchema is what ResetSQLite puts into a database: three tables, rows in
// each, user_version 0.
var appSchema = []string{
	`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, qty INTEGER NOT NULL)`,
	`INSERT INTO items (id, name, qty) VALUES (1, 'apple', 3), (2, 'pear', 5), (3, 'plum', 7)`,
	`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`,
	`INSERT INTO notes (id, body) VALUES (1, 'first note'), (2, 'second note')`,
	`CREATE TABLE secrets (id INTEGER PRIMARY KEY, secret TEXT NOT NULL)`,
	`PRAGMA user_version = 0`,
}

// OpenSQLite opens the database at path for the harness: its own
// connection, waiting up to 2 s for a lock a server holds.
func OpenSQLite(path string) (*sql.DB, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(2000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// ResetSQLite makes the database at path hold exactly the staged tables
// and rows again (with secret in its secrets table), dropping whatever else
// is there, in one transaction. A server holding it open sees the reset.
func ResetSQLite(path, secret string) error {
	db, err := OpenSQLite(path)
	if err != nil {
		return fmt.Errorf("sandbox: %s: %w", filepath.Base(path), err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sandbox: resetting %s: %w", filepath.Base(path), err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND type IN ('table', 'view', 'trigger')`)
	if err != nil {
		return fmt.Errorf("sandbox: resetting %s: %w", filepath.Base(path), err)
	}
	var drops []string
	for rows.Next() {
		var typ, name string
		if err := rows.Scan(&typ, &name); err == nil {
			drops = append(drops, fmt.Sprintf("DROP %s IF EXISTS %s", strings.ToUpper(typ), quoteIdent(name)))
		}
	}
	rows.Close()
	stmts := append(drops, appSchema...)
	stmts = append(stmts, fmt.Sprintf("INSERT INTO secrets (id, secret) VALUES (1, '%s')", secret))
	for _, st := range stmts {
		if _, err := tx.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("sandbox: resetting %s: %s: %w", filepath.Base(path), st, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sandbox: resetting %s: %w", filepath.Base(path), err)
	}
	return nil
}

// quoteIdent quotes an SQLite identifier.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
