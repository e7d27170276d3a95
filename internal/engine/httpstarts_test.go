package engine_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/environ"
	"github.com/sealmark/sealmark/internal/fixture/httpfixture"
	"github.com/sealmark/sealmark/packs"
)

// TestPackStartsOncePerRoleOverHTTP: a pack of two starts, each with its
// own value of a placeholder the server's environment names, against a
// server the harness starts for its URL (--start): each start meets a
// server started with its own value, not the first start's, and the
// replacement holds the canaries as the first did. (The one started
// server used to serve every start: the db pack's writer start met the
// reader's connection string.)
func TestPackStartsOncePerRoleOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a pack of two starts against an HTTP server")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	var got []map[string]any
	who := whoamiPack(&got)
	pk := packs.Pack{Name: "roles", Doc: "one start per role", Probes: who.Probes,
		Starts: func(*packs.Setup) ([]packs.Start, error) {
			var out []packs.Start
			for _, role := range []string{"reader", "writer"} {
				out = append(out, packs.Start{Name: role, Vars: map[string]string{"dsn": "postgres://" + role + "@127.0.0.1/app"}})
			}
			return out, nil
		}}
	cfg := fixtureConfig(t, "")
	cfg.Command, cfg.Args = "", nil
	cfg.Start = self + " " + httpfixture.Verb + " -addr 127.0.0.1:{port} -flaws=env-report"
	cfg.URL = "http://127.0.0.1:{port}/mcp"
	cfg.Env = []environ.KV{{Name: "APP_DSN", Value: "{dsn}"}}
	cfg.Catalog = []packs.Pack{pk}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	require.Len(t, got, 2, "whoami ran on both starts")
	for i, role := range []string{"reader", "writer"} {
		env := got[i]["env"].(map[string]any)
		assert.Equal(t, "postgres://"+role+"@127.0.0.1/app", env["APP_DSN"], "start %s: {dsn} in server.env", role)
		assert.Regexp(t, `^sm-canary-[0-9a-f]{16}$`, env["SEALMARK_CANARY"], "start %s: the canaries", role)
	}
	for _, w := range rep.Warnings {
		assert.NotContains(t, w, "outlived", "the replaced server left nothing behind")
	}
}
