package engine_test

import (
	"context"
	"encoding/json"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/slowtest"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// localPostgres is the machine's PostgreSQL (trust auth for postgres on
// loopback); tests that need it skip when it does not answer.
const localPostgres = "127.0.0.1:5432"

var answer42 = regexp.MustCompile(`"answer":\s*42\b`)

// queryPack asks a database server's query tool for 41+1.
var queryPack = packs.Pack{Name: "query", Doc: "one query through the server", Probes: []packs.Probe{{
	ID: "TEST-QUERY", Name: "query", Doc: "select 41+1 answers 42",
	Run: func(p *packs.Pass) {
		res, err := p.Call("query", map[string]any{"sql": "select 41+1 as answer"})
		if err != nil || res.Error != nil {
			p.Reportf("query failed: %v %s", err, res.Brief())
			return
		}
		var r struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		}
		if err := json.Unmarshal(res.Result, &r); err != nil || len(r.Content) == 0 || r.IsError || !answer42.MatchString(r.Content[0].Text) {
			p.Reportf("query answered %s", res.Result)
		}
	},
}}}

// postgresRun runs queryPack against the real server-postgres 0.6.2 with
// the local PostgreSQL's DSN, its address declared as services.
func postgresRun(t *testing.T, services ...string) *report.Report {
	script := realserver.Postgres062.Script(t)
	c, err := net.DialTimeout("tcp", localPostgres, time.Second)
	if err != nil {
		t.Skipf("no PostgreSQL at %s: %v", localPostgres, err)
	}
	c.Close()
	cfg := engine.Config{
		Command: "node", Args: []string{script, "postgresql://postgres@" + localPostgres + "/postgres"},
		Services: services, SandboxDir: t.TempDir(), Catalog: []packs.Pack{queryPack},
		StartTimeout: slowtest.Scale(30 * time.Second), CallTimeout: 10 * time.Second,
	}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	return rep
}

// TestRealPostgresThroughDeclaredService calibrates declared services on
// @modelcontextprotocol/server-postgres 0.6.2: contained, with the local
// PostgreSQL declared (tcp:127.0.0.1:5432), it answers a query, the run is
// STANDARD, the isolation line names the service and the connection is on
// record as allowed. Without the declaration the same query fails (the
// namespace has no route to the host's port). Checked by hand once with
//
//	sealmark run --service tcp:127.0.0.1:5432 --packs core -- node \
//	  testdata/npm/postgres-0.6.2/node_modules/@modelcontextprotocol/server-postgres/dist/index.js \
//	  postgresql://postgres@127.0.0.1:5432/postgres
//
// which ran STANDARD with the service in the isolation line.
func TestRealPostgresThroughDeclaredService(t *testing.T) {
	rep := postgresRun(t, "tcp:"+localPostgres)
	assert.Equal(t, report.Standard, rep.Class, "%v", rep.ClassReasons)
	assert.Contains(t, rep.Sandbox.Isolation, "services=tcp:"+localPostgres)
	require.Len(t, rep.Packs, 1)
	probe := rep.Packs[0].Probes[0]
	assert.Equal(t, packs.Passed, probe.Verdict, "%+v", probe)
	if strings.Contains(rep.Sandbox.Isolation, "seccomp-notify") {
		r := find(probe.Observations, observers.KindSocket, func(r observers.Record) bool { return r.Data["port"] == "5432" })
		require.NotNil(t, r, "the database connection is not on record: %v", probe.Observations)
		assert.Equal(t, "allow", r.Data["verdict"])
	}

	rep = postgresRun(t)
	probe = rep.Packs[0].Probes[0]
	assert.Equal(t, packs.Failed, probe.Verdict, "without the declared service the query must fail: %+v", probe)
}
