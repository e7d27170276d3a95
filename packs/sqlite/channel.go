package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/sandbox"
)

// channel is an SQL tool proven to run SQL on app.db, and how the harness
// knows: it returned the items table's rows (reads), or the harness's own
// connection saw its control statement change app.db (verb). A tool that
// refuses SELECT (write_query beside a read_query, create_table taking a
// CREATE TABLE statement) is a channel all the same: what it does is
// judged by its effect on app.db and on the file system, never by rows it
// returns.
type channel struct {
	Tool
	reads bool   // it returned the items table's rows
	verb  string // "insert", "create" or "alter": the write the harness saw it make; "" for a reader
}

// writeControls are the statements that prove a tool that refuses SELECT
// runs SQL on app.db, by verb, in the order tried.
var writeControls = []string{"insert", "create", "alter"}

// channels returns the SQL tools as channels, each after its control: the
// items rows for a reader, else a write the harness saw. A tool that
// passes none is recorded as a failed control and left out.
func (r *run) channels() []channel {
	var out []channel
	for _, t := range r.tools(SQL, false) {
		if c, ok := r.prove(t); ok {
			out = append(out, c)
		}
	}
	return out
}

// prove runs t's controls: the read control first, then (when the run is
// active: they write) each write control until the harness sees one
// change app.db.
func (r *run) prove(t Tool) (channel, bool) {
	q := "SELECT name FROM items ORDER BY id"
	res := r.call(t, q, "control "+r.describe(t, q))
	if res == nil {
		return channel{}, false
	}
	if !res.Refused() && bytes.Contains(res.Body(), []byte("apple")) && bytes.Contains(res.Body(), []byte("plum")) {
		r.changed(nil) // a side effect is side-effect-write's to judge
		return channel{Tool: t, reads: true}, true
	}
	r.changed(nil)
	tried := []string{r.describe(t, q) + " did not return the items table's rows (" + brief(res) + ")"}
	if !r.p.Active {
		r.failed = append(r.failed, t.Name+": "+tried[0]+"; a tool that returns no rows is judged by its effect, with --active")
		return channel{}, false
	}
	for _, verb := range writeControls {
		q := r.writeControl(verb)
		if r.call(t, q, "control "+r.describe(t, q)) == nil {
			return channel{}, false
		}
		if len(r.changed(nil)) > 0 {
			return channel{Tool: t, verb: verb}, true
		}
		tried = append(tried, r.describe(t, q)+" changed nothing")
	}
	r.failed = append(r.failed, t.Name+": "+strings.Join(tried, ", "))
	return channel{}, false
}

// writeControl is the control of a verb: a change the harness sees.
func (r *run) writeControl(verb string) string {
	switch verb {
	case "create":
		return fmt.Sprintf("CREATE TABLE %s (a)", r.ident("_c"))
	case "alter":
		return fmt.Sprintf("ALTER TABLE items ADD COLUMN %s", r.ident("_c"))
	}
	return fmt.Sprintf("INSERT INTO notes (body) VALUES ('%s')", r.ident(""))
}

// prefix is a statement of the channel's own kind that changes nothing
// the probes judge (the table it makes carries the token; the column it
// adds is on items, which skip leaves out for it), for writes stacked
// behind it.
func (r *run) prefix(c channel) string {
	switch c.verb {
	case "create":
		return fmt.Sprintf("CREATE TABLE %s (a)", r.ident("_p"))
	case "alter":
		// A column of its own each time: a server's connection that
		// cached items with the last one added (its schema read before
		// the reset) refuses the same name again when it parses.
		r.seq++
		return fmt.Sprintf("ALTER TABLE items ADD COLUMN %s", r.ident(fmt.Sprintf("_p%d", r.seq)))
	case "insert":
		return "INSERT INTO notes (body) SELECT body FROM notes WHERE 0"
	}
	return "SELECT 1"
}

// own reports whether an object is one the probe made (its name carries
// the token): a table a prefix or control was entitled to make.
func (r *run) own(name string) bool { return strings.Contains(name, r.ident("")) }

// skip is what a call through c stacked behind its prefix is entitled to
// change: the probe's own tables, and items for an ALTER TABLE prefix.
func (r *run) skip(c channel) func(string) bool {
	if c.verb == "alter" {
		return func(name string) bool { return name == "items" || r.own(name) }
	}
	return r.own
}

// copyOut is a statement of the channel's own kind that copies the
// secrets table of the database attached as alias into app.db, where the
// harness's own connection finds it; "" for a reader, whose rows show it.
func (r *run) copyOut(c channel, alias string) string {
	switch c.verb {
	case "create":
		return fmt.Sprintf("CREATE TABLE %s AS SELECT secret FROM %s.secrets", r.ident("_copy"), alias)
	case "insert":
		return fmt.Sprintf("INSERT INTO notes (body) SELECT secret FROM %s.secrets", alias)
	}
	return ""
}

// holds reports the table of app.db whose rows hold needle, as the
// harness's own connection reads it, or "".
func holds(path, needle string) (string, error) {
	db, err := sandbox.OpenSQLite(path)
	if err != nil {
		return "", err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	names, err := tableNames(ctx, db)
	if err != nil {
		return "", err
	}
	for _, name := range names {
		rows, err := db.QueryContext(ctx, `SELECT * FROM "`+strings.ReplaceAll(name, `"`, `""`)+`"`)
		if err != nil {
			return "", err
		}
		found := false
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() && !found {
			if rows.Scan(ptrs...) == nil {
				found = strings.Contains(fmt.Sprintf("%s", vals), needle)
			}
		}
		rows.Close()
		if found {
			return name, nil
		}
	}
	return "", nil
}

// tableNames lists app.db's tables.
func tableNames(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}
