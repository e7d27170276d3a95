package db

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/packs"
)

// Pack is the db pack with its admin DSN from SEALMARK_DB_ADMIN_DSN; the
// front ends use New with db.admin_dsn.
var Pack = New("")

// New returns the db pack reaching PostgreSQL through adminDSN ("" means
// SEALMARK_DB_ADMIN_DSN). Without one the pack is not applicable.
func New(adminDSN string) packs.Pack {
	return packs.Pack{
		Name: "db",
		Doc:  "a PostgreSQL server must keep a read-only tool read-only, stay within the role it was given, bound its statements and never echo its DSN",
		Applies: func(s *packs.Surface) (bool, string) {
			for _, t := range s.Tools {
				if t.SQLArg() != "" {
					return true, ""
				}
			}
			return false, fmt.Sprintf("no tool takes SQL: none of the %d tools has a string argument named sql, query or statement", len(s.Tools))
		},
		Prepare: prepare,
		Starts:  func(s *packs.Setup) ([]packs.Start, error) { return starts(s.Ctx, adminDSN, s.Vars) },
		Probes:  []packs.Probe{readOnlyEscape, roleReach, statementTimeout, dsnEcho},
	}
}

// NotPointed returns pk made not applicable: the server's configuration
// does not name {dsn}, so it would not connect to the pack's database.
func NotPointed(pk packs.Pack) packs.Pack {
	pk.Starts = func(*packs.Setup) ([]packs.Start, error) {
		return nil, fmt.Errorf("%w: the server was not pointed at {dsn} (the pack's per-role connection string): give it in server.args or server.env", packs.ErrNotApplicable)
	}
	return pk
}

// live holds the run's databases by name, for the probes' oracle.
var live sync.Map // name → *Database

// Open makes a run's database through adminDSN ("" means
// SEALMARK_DB_ADMIN_DSN), after sweeping what killed runs left, and
// registers it to be dropped on Ctrl-C; Close drops it. An error wrapping
// packs.ErrNotApplicable means there is no admin DSN or its database
// cannot be reached.
func Open(ctx context.Context, adminDSN string) (*Database, error) {
	if adminDSN == "" {
		adminDSN = os.Getenv("SEALMARK_DB_ADMIN_DSN")
	}
	if adminDSN == "" {
		return nil, fmt.Errorf("%w: no db.admin_dsn (SEALMARK_DB_ADMIN_DSN) names a PostgreSQL database to make throwaway roles in", packs.ErrNotApplicable)
	}
	admin, err := ParseAdmin(adminDSN)
	if err != nil {
		return nil, err
	}
	if _, err := Sweep(ctx, admin); err != nil {
		var unreachable *unreachableError
		if errors.As(err, &unreachable) {
			return nil, fmt.Errorf("%w: %v", packs.ErrNotApplicable, err)
		}
	}
	d, err := Create(ctx, admin)
	if err != nil {
		return nil, err
	}
	live.Store(d.Name, d)
	d.undo = cleanup.Add(d.Close) // Ctrl-C, SIGTERM, SIGHUP
	return d, nil
}

// Close drops the database and its roles, once, and forgets it.
func (d *Database) Close() {
	d.once.Do(func() {
		_ = d.Drop(context.Background())
		live.Delete(d.Name)
		if d.undo != nil {
			d.undo()
		}
	})
}

// Address is the database server's host:port, as the roles' DSNs name it.
func (d *Database) Address() string { return d.hostPort }

// Secrets are the values every output must mask: both passwords and both
// connection strings.
func (d *Database) Secrets() []string {
	return []string{d.Reader.Password, d.Writer.Password, d.Reader.DSN, d.Writer.DSN}
}

// starts asks for one start per role: the reader, then the writer (on
// whom the read-only escapes are tried, since only a role that may write
// shows what the server's own guard stops). The run's database is reused
// when the engine made it for {dsn} (vars name it); otherwise the pack
// makes its own and drops it after the writer's start.
func starts(ctx context.Context, adminDSN string, vars map[string]string) ([]packs.Start, error) {
	var closeDB func()
	v, ok := live.Load(vars["db_name"])
	d, _ := v.(*Database)
	if !ok {
		var err error
		if d, err = Open(ctx, adminDSN); err != nil {
			return nil, err
		}
		closeDB = d.Close
	}
	return []packs.Start{
		{Name: "reader", Vars: map[string]string{"dsn": d.Reader.DSN, "db_role": "reader", "db_name": d.Name}, Secrets: d.Secrets()},
		{Name: "writer", Vars: map[string]string{"dsn": d.Writer.DSN, "db_role": "writer", "db_name": d.Name}, Secrets: d.Secrets(), Close: closeDB},
	}, nil
}

// database is the probe's start's database and role, or nil (and the probe
// marked not applicable) when the start has none.
func database(p *packs.Pass) (*Database, Role) {
	v, ok := live.Load(p.Vars["db_name"])
	if !ok {
		p.NotApplicable("this start has no database of the pack's ({dsn} was not made)")
		return nil, Role{}
	}
	d := v.(*Database)
	if p.Vars["db_role"] == "writer" {
		return d, d.Writer
	}
	return d, d.Reader
}
