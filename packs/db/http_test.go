package db_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// httpCase is one run of TestRealServerHTTP.
type httpCase struct {
	name string
	cfg  engine.Config
	want packtest.Want
	only []string // the probes the run selects, every one when nil
}

func (c httpCase) TestName() string { return c.name }

// TestRealServerHTTP runs the pack against server-postgres 0.6.2 behind
// the supergateway 4.0.0 bridge (stdio to streamable HTTP, one stdio
// server per MCP session), which Sealmark starts for its URL (--start)
// inside the sandbox, where it listens on the network namespace's own
// loopback only, and compares it probe by probe with the stdio run of the
// same server: every probe runs on both starts, none inconclusive, and
// ends with the same verdict and findings. Each start meets a bridge
// started with its own role's {dsn}: before the harness replaced the
// started server between starts of other values, the writer start met the
// reader's server, so the escapes passed (the reader cannot write) and
// role-reach failed (current_user named the reader).
//
// The bridge runs with --logLevel none. At its default level it prints its
// --stdio command, the DSN and its password with it, to stdout, which the
// harness keeps as the started server's log: dsn-echo fails on both
// starts, the bridge's echo and not the server's (the "default-log" run
// pins it).
//
// Hand-checked once with raw JSON-RPC over HTTP on 127.0.0.1, the bridge
// started uncontained with a role that may INSERT into items:
//
//	node testdata/npm/supergateway-4.0.0/node_modules/supergateway/dist/index.js \
//	  --stdio "node .../server-postgres/dist/index.js 'postgres://writer:PW@127.0.0.1:5432/db'" \
//	  --outputTransport streamableHttp --stateful --port 18777 --logLevel none
//	curl -si http://127.0.0.1:18777/mcp -H 'content-type: application/json' \
//	  -H 'accept: application/json, text/event-stream' \
//	  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}'
//	# then, with the mcp-session-id header it answered, notifications/initialized and
//	curl ... -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"query","arguments":{"sql":"COMMIT; INSERT INTO items (name) VALUES (''escaped'')"}}}'
//
// answered an empty result, and psql then showed the row; the same call
// with "INSERT INTO items ..." alone answered "cannot execute INSERT in a
// read-only transaction" (docs/db-http.md has the whole script).
func TestRealServerHTTP(t *testing.T) {
	dsn := admin(t)
	gateway := realserver.Supergateway.CwdArg(t)
	script := realserver.Postgres062.CwdArg(t)
	bridged := func(flags string) engine.Config {
		cfg := config(t, dsn, nil, "")
		cfg.Start = fmt.Sprintf(`node %s --stdio "node %s '{dsn}'" --outputTransport streamableHttp --stateful --port {port}%s`, gateway, script, flags)
		cfg.URL = "http://127.0.0.1:{port}/mcp"
		// node loads the bridge's two SDKs before it listens: seconds
		// on a loaded machine, where the fixtures' 20 s is too short.
		cfg.StartTimeout = 90 * time.Second
		return cfg
	}
	want := packtest.Want{
		"writer/DB-READONLY-ESCAPE":   escaped,
		"reader/DB-STATEMENT-TIMEOUT": {`query(sql="SELECT pg_sleep(60)") got no answer within 5s: the server sets no statement timeout`},
	}
	cases := []httpCase{
		{name: "stdio", cfg: config(t, dsn, nil, "node", script, "{dsn}"), want: want},
		{name: "http", cfg: bridged(" --logLevel none"), want: want},
		{name: "default-log", cfg: bridged(""), only: []string{"db/dsn-echo"}, want: packtest.Want{
			"reader/DB-DSN-ECHO": {"the reader role's password appeared in the server log"},
			"writer/DB-DSN-ECHO": {"the writer role's password appeared in the server log"},
		}},
	}
	reports := map[string]*report.Report{}
	packtest.RunAll(t, cases, func(c httpCase) engine.Config {
		c.cfg.OnlyProbes = c.only
		return c.cfg
	}, func(t *testing.T, c httpCase, r packtest.Result) {
		reports[c.name] = r.Report
		for _, w := range r.Report.Warnings {
			// Other warnings depend on the machine's load: the bridge
			// answers server/discover by starting a server of its own,
			// which may take longer than the era's bound.
			require.NotContains(t, w, "{dsn}", "the engine made the run's database for {dsn}")
		}
		require.Equal(t, "legacy", r.Report.Protocol.Era, "server-postgres 0.6.2 speaks the legacy protocol, bridged or not")
		require.Equal(t, "STANDARD", string(r.Report.Class), "the run is contained and standard: %v", r.Report.ClassReasons)
		if c.name == "stdio" {
			require.Equal(t, "stdio", r.Report.Protocol.Transport)
		} else {
			require.Equal(t, "http", r.Report.Protocol.Transport)
		}
		if c.only == nil {
			expect(t, r.Report, c.want)
		} else {
			packtest.Expect(t, r.Report, c.want)
		}
	})
	if reports["stdio"] != nil && reports["http"] != nil {
		require.Equal(t, outcomes(reports["stdio"]), outcomes(reports["http"]), "the HTTP run's verdicts and findings differ from the stdio run's")
	}
	require.Empty(t, leftovers(t, dsn), "the runs left their databases or roles")
}

// outcomes are a report's probe verdicts and finding messages (tokens
// masked), keyed start/ID.
func outcomes(rep *report.Report) map[string][]string {
	out := map[string][]string{}
	for _, pk := range rep.Packs {
		for _, p := range pk.Probes {
			v := []string{string(p.Verdict)}
			for _, f := range p.Findings {
				v = append(v, f.Severity.String()+": "+f.Message)
			}
			slices.Sort(v[1:])
			out[pk.Start+"/"+p.ID] = v
		}
	}
	return out
}
