package goldens_test

import (
	"context"
	"encoding/json"
	"flag"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/fixture/effectsserver"
	"github.com/sealmark/sealmark/internal/fixture/execserver"
	"github.com/sealmark/sealmark/internal/fixture/fsserver"
	"github.com/sealmark/sealmark/internal/fixture/gitserver"
	"github.com/sealmark/sealmark/internal/fixture/pgserver"
	"github.com/sealmark/sealmark/internal/fixture/sqlserver"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/packs/db"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

var update = flag.Bool("update", false, "rewrite the golden files from this run")

func TestMain(m *testing.M) {
	contain.Dispatch()
	fixture.Dispatch()
	fsserver.Dispatch()
	gitserver.Dispatch()
	execserver.Dispatch()
	effectsserver.Dispatch()
	sqlserver.Dispatch()
	pgserver.Dispatch()
	smbin.Dispatch()
	os.Exit(m.Run())
}

// golden is one run: its name (the golden file's), the fixture and its
// arguments, and the configuration beyond them.
type golden struct {
	name string
	args []string
	cfg  func(*engine.Config)
}

// packsOf selects packs by name from the whole catalogue, active.
func packsOf(names ...string) func(*engine.Config) {
	return func(c *engine.Config) { c.Packs, c.Active = names, true }
}

// goldens are the runs: each shipped pack against its fixture's correct
// twin and a flawed one, the whole catalogue against the file and git
// fixtures (so the set-up a pack asks for mid-run, the git layout and the
// drift check, is taken too), the fs pack with hints, and the db pack
// when a PostgreSQL is reachable.
func goldens(t *testing.T) []golden {
	all := func(c *engine.Config) { c.Active = true }
	gs := []golden{
		{"core-correct", []string{fixture.Verb}, packsOf("core")},
		{"core-flawed", []string{fixture.Verb, "-flaws=echo-canary,rug-pull,wrong-unknown-method-code,canary-in-log"}, packsOf("core")},
		{"all-fs-correct", []string{fsserver.Verb, "{sandbox}"}, all},
		{"all-git-flawed", []string{gitserver.Verb, "-flaws=prefix-check", "{sandbox}"}, all},
		{"fs-flawed", []string{fsserver.Verb, "-flaws=follow-links", "{sandbox}"}, packsOf("fs")},
		// Every pack on a flawed file, effects and SQL server: core's drift
		// check hands its start on to fs and sqlite in turn (effects starts
		// its own).
		{"all-fs-flawed", []string{fsserver.Verb, "-flaws=follow-links", "{sandbox}"}, all},
		{"all-effects-flawed", []string{effectsserver.Verb, "-flaws=no-filter", "-allow={upstream}", "-outside=127.0.0.1:9", "-dns=127.0.0.53:53"}, all},
		{"all-sqlite-flawed", []string{sqlserver.Verb, "-flaws=no-guard", "{sqlite}"}, all},
		{"fs-hinted", []string{fsserver.Verb, "-flaws=prefix-check", "{sandbox}"}, func(c *engine.Config) {
			packsOf("fs")(c)
			c.Hints = map[string]map[string]any{"fs": {"read_file": map[string]any{"role": "read", "path": "path"}}}
		}},
		{"git-correct", []string{gitserver.Verb, "{sandbox}"}, packsOf("git")},
		{"exec-correct", []string{execserver.Verb, "{sandbox}"}, packsOf("exec")},
		{"exec-flawed", []string{execserver.Verb, "-flaws=env-passthrough", "{sandbox}"}, packsOf("exec")},
		{"effects-correct", []string{effectsserver.Verb, "-allow={upstream}", "-outside=127.0.0.1:9", "-dns=127.0.0.53:53"}, func(c *engine.Config) { c.Packs = []string{"effects"} }},
		{"effects-flawed", []string{effectsserver.Verb, "-flaws=no-filter", "-allow={upstream}", "-outside=127.0.0.1:9", "-dns=127.0.0.53:53"}, func(c *engine.Config) { c.Packs = []string{"effects"} }},
		{"sqlite-correct", []string{sqlserver.Verb, "{sqlite}"}, packsOf("sqlite")},
		{"sqlite-flawed", []string{sqlserver.Verb, "-flaws=no-guard", "{sqlite}"}, packsOf("sqlite")},
		{"sqlite-not-pointed", []string{sqlserver.Verb, "{sandbox}/elsewhere.db"}, packsOf("sqlite")},
	}
	if dsn, ok := postgres(); ok {
		svc := service(t, dsn)
		withDB := func(c *engine.Config) {
			packsOf("db")(c)
			c.DBAdminDSN, c.Services = dsn, []string{svc}
		}
		gs = append(gs,
			golden{"db-correct-files", []string{pgserver.Verb, "@{sandbox}/conf/pg.toml"}, func(c *engine.Config) {
				withDB(c)
				c.Files = []engine.File{{Path: "conf/pg.toml", Content: "{dsn}\n"}}
			}},
			golden{"db-flawed", []string{pgserver.Verb, "-flaws=simple-protocol", "{dsn}"}, withDB},
		)
	} else {
		t.Log("no PostgreSQL reachable: the db goldens are not compared")
	}
	return gs
}

// TestGoldens runs every golden and compares its normalized report with
// testdata/<name>.json (-update writes it). A golden whose run shared a
// start between packs (packs.Pack.SharesStart) runs again with fresh
// starts (Config.FreshStarts), which must give the same file: -update
// writes it from that run. A golden where a pack after the first started
// the server afresh runs again with two packs at once (Config.Jobs 2,
// the CLI's default on two CPUs), which must give the same file too.
func TestGoldens(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every pack against its fixtures")
	}
	self := packtest.Self(t)
	gs := goldens(t)
	// Two at a time, not packtest.Parallel: on a loaded machine more
	// runs at once make the later starts (the drift check's) miss their
	// bounds, which would show as a changed verdict.
	run := func(g golden, fresh bool, jobs int) packtest.Result {
		r := packtest.Result{Dir: t.TempDir()}
		c := engine.Config{Command: self, Args: g.args, CallTimeout: 10 * time.Second, FreshStarts: fresh, Jobs: jobs}
		g.cfg(&c)
		r.Report, r.Err = packtest.Run(r.Dir, c)
		return r
	}
	results := make([]packtest.Result, len(gs))
	freshResults := make([]*packtest.Result, len(gs))
	jobsResults := make([]*packtest.Result, len(gs))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i, g := range gs {
		wg.Go(func() {
			sem <- struct{}{}
			results[i] = run(g, false, 1)
			<-sem
			if results[i].Err == nil && shared(results[i].Report) {
				sem <- struct{}{}
				r := run(g, true, 1)
				<-sem
				freshResults[i] = &r
			}
			if results[i].Err == nil && parted(results[i].Report) {
				sem <- struct{}{}
				r := run(g, false, 2)
				<-sem
				jobsResults[i] = &r
			}
		})
	}
	wg.Wait()
	for i, g := range gs {
		t.Run(g.name, func(t *testing.T) {
			path := filepath.Join("testdata", g.name+".json")
			var want []byte
			if !*update {
				var err error
				want, err = os.ReadFile(path)
				require.NoError(t, err, "no golden file: run with -update on the code the goldens are taken from")
			}
			check := func(r packtest.Result, how string) {
				require.NoError(t, r.Err)
				require.Empty(t, r.Report.HarnessError)
				got, err := json.MarshalIndent(normalize(r.Report), "", "  ")
				require.NoError(t, err)
				got = append(got, '\n')
				if *update {
					require.NoError(t, os.WriteFile(path, got, 0o644))
					return
				}
				assert.Equal(t, string(want), string(got), "the report of %s changed (%s)", g.name, how)
			}
			check(results[i], "sharing starts")
			if fr := freshResults[i]; fr != nil {
				assert.False(t, shared(fr.Report), "a fresh-starts run shared a start")
				check(*fr, "fresh starts")
			}
			if jr := jobsResults[i]; jr != nil {
				check(*jr, "two packs at once")
				t.Log("compared with two packs at once too")
			}
		})
	}
}

// parted reports whether a pack after rep's first ran on a start of its
// own: a run with Config.Jobs above 1 runs such a pack beside the others.
func parted(rep *report.Report) bool {
	return len(rep.Packs) > 1 && slices.ContainsFunc(rep.Packs[1:], func(pk report.Pack) bool {
		return pk.SharedStart == "" && len(pk.Probes) > 0
	})
}

// run is the part of a report a consolidation must keep: what ran, the
// verdicts and what was found, without times, paths, tokens or messages
// (a finding's fingerprint stands for its stable message).
type run struct {
	Class      string         `json:"class"`
	Packs      []pack         `json:"packs"`
	NotCovered []string       `json:"notCovered,omitempty"`
	Summary    report.Summary `json:"summary"`
}

type pack struct {
	Name   string  `json:"name"`
	Start  string  `json:"start,omitempty"`
	Probes []probe `json:"probes"`
}

type probe struct {
	ID       string   `json:"id"`
	Verdict  string   `json:"verdict"`
	Severity string   `json:"severity"`
	Findings []string `json:"findings,omitempty"`
}

func normalize(rep *report.Report) run {
	out := run{Class: rep.Class, Summary: rep.Summary}
	for _, pk := range rep.Packs {
		p := pack{Name: pk.Name, Start: pk.Start}
		for _, pr := range pk.Probes {
			q := probe{ID: pr.ID, Verdict: string(pr.Verdict), Severity: pr.Severity.String()}
			for _, f := range pr.Findings {
				q.Findings = append(q.Findings, f.Severity.String()+" "+f.Fingerprint)
			}
			p.Probes = append(p.Probes, q)
		}
		out.Packs = append(out.Packs, p)
	}
	for _, nc := range rep.NotCovered {
		out.NotCovered = append(out.NotCovered, nc.Pack)
	}
	return out
}

// postgres is the PostgreSQL the db goldens use (SEALMARK_DB_ADMIN_DSN or
// the local default) when one answers.
func postgres() (string, bool) {
	dsn := os.Getenv("SEALMARK_DB_ADMIN_DSN")
	if dsn == "" {
		dsn = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", false
	}
	conn.Close(ctx)
	return dsn, true
}

// service is the admin DSN's address as a declared service.
func service(t *testing.T, dsn string) string {
	cfg, err := db.ParseAdmin(dsn)
	require.NoError(t, err)
	return "tcp:" + net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
}
