package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/sandbox"
)

// state is what the harness's own connection sees in app.db: each
// table's definition, row count and a hash of its rows, and user_version.
// The server's word is never the oracle.
type state struct {
	tables      map[string]table
	userVersion int64
}

type table struct {
	sql  string
	rows int
	hash string
}

// snapshot reads the database at path through a connection of the
// harness's own.
func snapshot(path string) (state, error) {
	db, err := sandbox.OpenSQLite(path)
	if err != nil {
		return state{}, err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st := state{tables: map[string]table{}}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&st.userVersion); err != nil {
		return state{}, err
	}
	rows, err := db.QueryContext(ctx, `SELECT type, name, coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'`)
	if err != nil {
		return state{}, err
	}
	var names []string
	for rows.Next() {
		var typ, name, def string
		if err := rows.Scan(&typ, &name, &def); err != nil {
			rows.Close()
			return state{}, err
		}
		st.tables[typ+" "+name] = table{sql: def}
		if typ == "table" {
			names = append(names, name)
		}
	}
	rows.Close()
	for _, name := range names {
		n, h, err := digest(ctx, db, name)
		if err != nil {
			return state{}, err
		}
		t := st.tables["table "+name]
		t.rows, t.hash = n, h
		st.tables["table "+name] = t
	}
	return st, nil
}

// digest counts a table's rows and hashes them in rowid order.
func digest(ctx context.Context, db *sql.DB, name string) (int, string, error) {
	rows, err := db.QueryContext(ctx, `SELECT * FROM "`+strings.ReplaceAll(name, `"`, `""`)+`"`)
	if err != nil {
		return 0, "", err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	h := sha256.New()
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, "", err
		}
		fmt.Fprintf(h, "%v\n", vals)
		n++
	}
	return n, hex.EncodeToString(h.Sum(nil)[:8]), rows.Err()
}

// diff describes what changed from a to b, one phrase per change, sorted;
// skip leaves out objects whose name it accepts (a table the probe was
// entitled to make).
func diff(a, b state, skip func(name string) bool) []string {
	var out []string
	for key, ta := range a.tables {
		typ, name, _ := strings.Cut(key, " ")
		tb, ok := b.tables[key]
		switch {
		case skip != nil && skip(name):
		case !ok:
			out = append(out, fmt.Sprintf("%s %s dropped", typ, name))
		case ta.sql != tb.sql:
			out = append(out, fmt.Sprintf("%s %s altered", typ, name))
		case ta.rows != tb.rows:
			out = append(out, fmt.Sprintf("%s: %d rows → %d", name, ta.rows, tb.rows))
		case ta.hash != tb.hash:
			out = append(out, fmt.Sprintf("%s: rows changed", name))
		}
	}
	for key := range b.tables {
		typ, name, _ := strings.Cut(key, " ")
		if _, ok := a.tables[key]; !ok && (skip == nil || !skip(name)) {
			out = append(out, fmt.Sprintf("%s %s created", typ, name))
		}
	}
	if a.userVersion != b.userVersion {
		out = append(out, fmt.Sprintf("user_version %d → %d", a.userVersion, b.userVersion))
	}
	sort.Strings(out)
	return out
}
